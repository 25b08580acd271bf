"""herald.identity.v1.MemberService: the organization's members and their roles (docs/teams.md)."""

from __future__ import annotations

import grpc
from herald.identity.v1 import members_pb2, members_pb2_grpc

from core.identity import members
from core.identity.principal import CredentialKind
from core.rpc.context import current_call
from core.rpc.convert import timestamp
from core.rpc.policy import MethodPolicy

# People change who is in the organization, never agents: an OAuth access token reads members only.
_HUMANS_AND_SERVERS = frozenset({CredentialKind.API_KEY, CredentialKind.SESSION})

POLICIES = {
    "ListMembers": MethodPolicy(plan_exempt_for_sessions=True, permission="read"),
    "UpdateMember": MethodPolicy(
        credential_kinds=_HUMANS_AND_SERVERS, plan_exempt_for_sessions=True, writes=True, permission="manage_members"
    ),
    "RemoveMember": MethodPolicy(
        credential_kinds=_HUMANS_AND_SERVERS, plan_exempt_for_sessions=True, writes=True, permission="manage_members"
    ),
}


def _member(record: members.MemberRecord, caller_id: str) -> members_pb2.Member:
    return members_pb2.Member(
        user_id=record.user_id,
        email=record.email,
        role=record.role,
        join_time=timestamp(record.joined_at),
        is_caller=record.user_id == caller_id,
    )


class MemberServicer(members_pb2_grpc.MemberServiceServicer):
    async def ListMembers(
        self, request: members_pb2.ListMembersRequest, context: grpc.aio.ServicerContext
    ) -> members_pb2.ListMembersResponse:
        call = current_call()
        found = await members.list_members(call.conn, call.principal.org_id)
        return members_pb2.ListMembersResponse(members=[_member(m, call.principal.user_id) for m in found])

    async def UpdateMember(
        self, request: members_pb2.UpdateMemberRequest, context: grpc.aio.ServicerContext
    ) -> members_pb2.Member:
        call = current_call()
        role = request.role if request.HasField("role") else None
        updated = await members.update_member(call.conn, call.principal, request.user_id, role)
        return _member(updated, call.principal.user_id)

    async def RemoveMember(
        self, request: members_pb2.RemoveMemberRequest, context: grpc.aio.ServicerContext
    ) -> members_pb2.Member:
        call = current_call()
        removed = await members.remove_member(call.conn, call.principal, request.user_id, call.now)
        return _member(removed, call.principal.user_id)
