"""Per-method access policy: who may call, whether a plan is needed, whether it writes."""

from __future__ import annotations

from dataclasses import dataclass, field

from google.protobuf.descriptor import ServiceDescriptor

from core.errors import Forbidden, InsufficientScope, SubscriptionRequired
from core.identity.principal import CredentialKind, Principal
from core.identity.roles import PERMISSIONS, allows
from core.identity.scopes import ALL_SCOPES

ALL_KINDS = frozenset(CredentialKind)


@dataclass(frozen=True, slots=True)
class PageBounds:
    """A list method's page_size: 0 means `default`; at most `maximum`."""

    default: int
    maximum: int


@dataclass(frozen=True, slots=True)
class MethodPolicy:
    # Credential kinds allowed to call; others get FORBIDDEN.
    credential_kinds: frozenset[CredentialKind] = ALL_KINDS
    # API keys and OAuth tokens of an organization without a plan get SUBSCRIPTION_REQUIRED.
    # Dashboard sessions are exempt where `plan_exempt_for_sessions` (a human must be able to
    # see their account to subscribe).
    plan_exempt_for_sessions: bool = False
    # Scopes the credential must carry, all of them.
    scopes: frozenset[str] = field(default_factory=frozenset)
    # What the credential's member must be allowed to do (core/identity/roles.py); every method
    # with a principal names one.
    permission: str = ""
    # Whether the method writes: on SQLite its transaction takes the write lock up front.
    writes: bool = False
    # False for methods that wait on I/O for long (hashing an upload): the credential is checked
    # in a short transaction of its own and the servicer opens its own (Call.transaction()).
    transactional: bool = True
    # True for protocol methods whose request carries its own proof (a password, a client
    # secret, an authorization code): no credential is read and the call has no principal.
    anonymous: bool = False
    # List methods: their page_size bounds (served in the catalog, so no surface copies them).
    page: PageBounds | None = None
    # CheckAccess: the policy applied is that of the method the request names.
    checks_named_method: bool = False


# The policy a method of a Herald service gets when none was declared: the strictest.
STRICT = MethodPolicy(credential_kinds=frozenset({CredentialKind.SESSION}), writes=True, permission="manage_members")


def method_names(service: ServiceDescriptor) -> list[str]:
    return [f"/{service.full_name}/{method.name}" for method in service.methods]


def policies_for(service: ServiceDescriptor, declared: dict[str, MethodPolicy]) -> dict[str, MethodPolicy]:
    """Keys the policies of one service by full gRPC method name, and refuses a service whose
    methods and declared policies disagree: a method without a policy is a bug, not a default."""
    for method in service.methods:
        if method.server_streaming:
            raise RuntimeError(f"{service.full_name}.{method.name}: server streaming is not supported")
        if method.client_streaming and declared.get(method.name, STRICT).transactional:
            raise RuntimeError(f"{service.full_name}.{method.name}: a streaming method cannot hold a transaction")
    for name, policy in declared.items():
        if unknown := policy.scopes - ALL_SCOPES:
            raise RuntimeError(f"{service.full_name}.{name}: unknown scopes {sorted(unknown)}")
        if policy.anonymous == bool(policy.permission) or (policy.permission and policy.permission not in PERMISSIONS):
            raise RuntimeError(
                f"{service.full_name}.{name}: a method with a principal names one known permission "
                f"(an anonymous one none), not {policy.permission!r}"
            )
    names = {method.name for method in service.methods}
    if names != set(declared):
        raise RuntimeError(
            f"{service.full_name}: policies missing for {sorted(names - set(declared))}, "
            f"unknown {sorted(set(declared) - names)}"
        )
    return {f"/{service.full_name}/{name}": policy for name, policy in declared.items()}


def apply_policy(principal: Principal, policy: MethodPolicy) -> None:
    """The order of checks after the credential itself (docs/api.md, "Errors"): its kind, then its
    scopes, then its member's role, then the plan.
    A missing scope names every scope the method needs, in one challenge (MCP authorization)."""
    if principal.credential_kind not in policy.credential_kinds:
        raise Forbidden(f"a {principal.credential_kind.value} credential cannot call this method")
    if policy.scopes - principal.scopes:
        raise InsufficientScope("the credential lacks a required scope", scope=" ".join(sorted(policy.scopes)))
    require_permission(principal, policy.permission)
    exempt = policy.plan_exempt_for_sessions and principal.credential_kind is CredentialKind.SESSION
    if not principal.has_plan and not exempt:
        raise SubscriptionRequired("this organization has no active or trialing plan")


def require_permission(principal: Principal, permission: str, what: str = "this") -> None:
    """FORBIDDEN, naming the permission and the role, unless the member's role carries it. Methods
    check their own permission through their policy; a servicer calls this for what depends on the
    request (a contributor's post that would go out)."""
    if not allows(principal.role, permission):
        raise Forbidden(
            f"your role ({principal.role or 'none'}) does not allow {what}: it needs the {permission!r} permission",
            permission=permission,
            role=principal.role,
        )
