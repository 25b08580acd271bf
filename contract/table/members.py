"""Operations of the organization's members (docs/teams.md)."""

from __future__ import annotations

from herald.identity.v1 import members_pb2

from contract import members
from contract.operation import Operation
from contract.requests import rpc_path

ROWS = (
    Operation(
        id="listMembers",
        method="GET",
        path="/v1/members",
        summary="The organization's members and their roles",
        tag="members",
        rpc=rpc_path(members_pb2, "MemberService", "ListMembers"),
        request=members.ListMembersRequest,
        responses={200: members.MemberList},
        description="Owners first, then by email. `you` marks the member the credential belongs to: every "
        "credential (API key, agent token, dashboard session) acts with its member's role.",
    ),
    Operation(
        id="updateMember",
        method="PATCH",
        path="/v1/members/{user_id}",
        summary="Give a member another role",
        tag="members",
        rpc=rpc_path(members_pb2, "MemberService", "UpdateMember"),
        request=members.UpdateMemberRequest,
        responses={200: members.Member},
        errors=("VALIDATION_ERROR", "FORBIDDEN", "NOT_FOUND", "LAST_OWNER"),
        description="Needs a role that manages members (owner, admin); only an owner makes, unmakes or changes "
        "an owner. The organization's last owner keeps the role (`LAST_OWNER`). The new role holds from the "
        "member's next request, for every credential they hold. `profile_tags` narrows the member to the profiles "
        'carrying one of them (`[]` lifts it; docs/teams.md, "Profile limits"): owners take none, nobody changes '
        "their own, and a limited member gives only limits within theirs. API keys and dashboard sessions only: "
        "agents never change who may do what.",
    ),
    Operation(
        id="removeMember",
        method="DELETE",
        path="/v1/members/{user_id}",
        summary="Remove a member from the organization",
        tag="members",
        rpc=rpc_path(members_pb2, "MemberService", "RemoveMember"),
        request=members.RemoveMemberRequest,
        responses={200: members.Member},
        errors=("FORBIDDEN", "NOT_FOUND", "LAST_OWNER"),
        description="Answers the member as they were. Their dashboard sessions, API keys and agent grants in this "
        "organization are revoked at once (their next request answers 401). Only an owner removes an owner; the "
        "last owner stays (`LAST_OWNER`).",
    ),
)

ROWS += (
    Operation(
        id="createInvitation",
        method="POST",
        path="/v1/invitations",
        summary="Invite a person by email with a role",
        tag="members",
        rpc=rpc_path(members_pb2, "MemberService", "CreateInvitation"),
        request=members.CreateInvitationRequest,
        responses={201: members.CreatedInvitation},
        errors=("VALIDATION_ERROR", "FORBIDDEN", "CONFLICT"),
        description="Answers the invitation and its single-use link (`url`, under this service's base URL), shown "
        "this once: only a hash of its token is kept. The link works for 7 days. When mail is configured it is "
        "also emailed (`emailed`). Inviting the same email again replaces its pending invitation (the old link "
        "stops working); an email that is already a member's is `CONFLICT`. Only an owner invites an owner. "
        "`profile_tags`: the profile limits the member joins with.",
    ),
    Operation(
        id="listInvitations",
        method="GET",
        path="/v1/invitations",
        summary="The invitations not yet used or revoked",
        tag="members",
        rpc=rpc_path(members_pb2, "MemberService", "ListInvitations"),
        request=members.ListInvitationsRequest,
        responses={200: members.InvitationList},
        errors=("FORBIDDEN",),
        description="Pending and expired invitations, newest first (at most 200). Their links are never shown again.",
    ),
    Operation(
        id="revokeInvitation",
        method="DELETE",
        path="/v1/invitations/{invitation_id}",
        summary="Revoke an invitation: its link stops working",
        tag="members",
        rpc=rpc_path(members_pb2, "MemberService", "RevokeInvitation"),
        request=members.RevokeInvitationRequest,
        responses={200: members.Invitation},
        errors=("FORBIDDEN", "NOT_FOUND", "INVITATION_CLOSED"),
        description="An invitation already accepted or revoked is `INVITATION_CLOSED` (410, `state` says which).",
    ),
)
