"""The organization's members and their roles (docs/teams.md): listing them, changing a member's
role or profile limits, removing a member. The roles and what each may do are the core's (its
catalog)."""

from __future__ import annotations

from typing import Annotated, Any

from herald.identity.v1 import members_pb2
from pydantic import Field

from contract.base import InPath, Request, Response, UtcTimestamp, timestamp
from contract.requests import ABSENT

_USER_ID = Annotated[str, InPath(), Field(min_length=1, max_length=64, description="The member's user id (`usr_…`).")]
_ROLE = (
    "owner, admin, editor, contributor or viewer (docs/teams.md has what each may do). Only an owner makes "
    "or unmakes an owner."
)
_PROFILE_TAGS = (
    "Profile limits: the member reaches only the profiles carrying one of these tags, and their posts "
    '(docs/teams.md, "Profile limits"). `[]`: every profile.'
)
_TAGS = Annotated[list[str], Field(max_length=20, description=_PROFILE_TAGS)]


class ListMembersRequest(Request):
    def to_proto(self) -> members_pb2.ListMembersRequest:
        return members_pb2.ListMembersRequest()


class UpdateMemberRequest(Request):
    """Changes a member; absent fields are kept."""

    user_id: _USER_ID
    role: Annotated[str, Field(min_length=1, max_length=32, description=_ROLE)] = ABSENT
    profile_tags: Annotated[
        list[str],
        Field(
            max_length=20,
            description=f"{_PROFILE_TAGS} Replaces the list. Owners take none; nobody changes their own.",
        ),
    ] = ABSENT

    def to_proto(self) -> members_pb2.UpdateMemberRequest:
        message = members_pb2.UpdateMemberRequest(user_id=self.user_id)
        if self.role is not None:
            message.role = self.role
        if self.profile_tags is not None:
            message.profile_tags.values.extend(self.profile_tags)
        return message


class RemoveMemberRequest(Request):
    user_id: _USER_ID

    def to_proto(self) -> members_pb2.RemoveMemberRequest:
        return members_pb2.RemoveMemberRequest(user_id=self.user_id)


class Member(Response):
    """A member of the organization."""

    user_id: str = Field(pattern="^usr_", description="The member's user id.")
    email: str = Field(description="The member's email address.")
    role: str = Field(description=_ROLE)
    joined_at: UtcTimestamp = Field(description="When they joined the organization.")
    you: bool = Field(description="Whether this member is the one the credential belongs to.")
    profile_tags: list[str] = Field(description=_PROFILE_TAGS)

    @classmethod
    def from_proto(cls, m: members_pb2.Member) -> dict[str, Any]:
        return {
            "user_id": m.user_id,
            "email": m.email,
            "role": m.role,
            "joined_at": timestamp(m.join_time),
            "you": m.is_caller,
            "profile_tags": list(m.profile_tags),
        }


class MemberList(Response):
    """Every member of the organization: owners first, then by email."""

    members: list[Member]

    @classmethod
    def from_proto(cls, r: members_pb2.ListMembersResponse) -> dict[str, Any]:
        return {"members": [Member.from_proto(m) for m in r.members]}


_EMAIL = Annotated[str, Field(min_length=3, max_length=320, description="The invited person's email address.")]
_INVITATION_ID = Annotated[
    str, InPath(), Field(min_length=1, max_length=64, description="The invitation's id (`inv_…`).")
]
_STATE = "`pending` (its link works), `expired`, `accepted` or `revoked`."


class CreateInvitationRequest(Request):
    email: _EMAIL
    role: Annotated[str, Field(min_length=1, max_length=32, description=_ROLE)]
    profile_tags: _TAGS = []

    def to_proto(self) -> members_pb2.CreateInvitationRequest:
        return members_pb2.CreateInvitationRequest(email=self.email, role=self.role, profile_tags=self.profile_tags)


class ListInvitationsRequest(Request):
    def to_proto(self) -> members_pb2.ListInvitationsRequest:
        return members_pb2.ListInvitationsRequest()


class RevokeInvitationRequest(Request):
    invitation_id: _INVITATION_ID

    def to_proto(self) -> members_pb2.RevokeInvitationRequest:
        return members_pb2.RevokeInvitationRequest(invitation_id=self.invitation_id)


class Invitation(Response):
    """An invitation to join the organization."""

    id: str = Field(pattern="^inv_", description="The invitation's id.")
    email: str = Field(description="Who is invited.")
    role: str = Field(description="The role they join with.")
    invited_by: str = Field(description="The inviter's email address.")
    created_at: UtcTimestamp
    expires_at: UtcTimestamp = Field(description="When its link stops working (7 days after it was made).")
    state: str = Field(description=_STATE)
    profile_tags: list[str] = Field(description="The profile limits they join with; `[]`: every profile.")

    @classmethod
    def from_proto(cls, i: members_pb2.Invitation) -> dict[str, Any]:
        return {
            "id": i.id,
            "email": i.email,
            "role": i.role,
            "invited_by": i.invited_by,
            "created_at": timestamp(i.create_time),
            "expires_at": timestamp(i.expire_time),
            "state": i.state,
            "profile_tags": list(i.profile_tags),
        }


class CreatedInvitation(Response):
    """The invitation and its link, shown this once: only a hash of it is kept."""

    invitation: Invitation
    url: str = Field(description="The single-use link to give the invited person (it carries its token).")
    emailed: bool = Field(description="Whether the link was queued to be emailed (mail is configured).")

    @classmethod
    def from_proto(cls, c: members_pb2.CreatedInvitation) -> dict[str, Any]:
        return {"invitation": Invitation.from_proto(c.invitation), "url": c.url, "emailed": c.emailed}


class InvitationList(Response):
    """Invitations neither used nor revoked (pending or expired), newest first."""

    invitations: list[Invitation]

    @classmethod
    def from_proto(cls, r: members_pb2.ListInvitationsResponse) -> dict[str, Any]:
        return {"invitations": [Invitation.from_proto(i) for i in r.invitations]}
