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
        "member's next request, for every credential they hold. API keys and dashboard sessions only: agents "
        "never change who may do what.",
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
