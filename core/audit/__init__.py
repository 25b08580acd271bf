"""The audit log: every change a person made, who, through which credential, when, from which request."""
