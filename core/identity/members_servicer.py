"""herald.identity.v1.MemberService: the organization's members and their roles (docs/teams.md)."""

from __future__ import annotations

import grpc
from herald.identity.v1 import members_pb2, members_pb2_grpc

from core.identity import accounts, invitations, members
from core.identity.principal import CredentialKind
from core.rpc.context import current_call
from core.rpc.convert import timestamp
from core.rpc.policy import MethodPolicy

# People change who is in the organization, never agents: an OAuth access token reads members only.
_HUMANS_AND_SERVERS = frozenset({CredentialKind.API_KEY, CredentialKind.SESSION})
_SESSIONS = frozenset({CredentialKind.SESSION})
_MANAGE = MethodPolicy(
    credential_kinds=_HUMANS_AND_SERVERS, plan_exempt_for_sessions=True, writes=True, permission="manage_members"
)

POLICIES = {
    "ListMembers": MethodPolicy(plan_exempt_for_sessions=True, permission="read"),
    "UpdateMember": _MANAGE,
    "RemoveMember": _MANAGE,
    "CreateInvitation": _MANAGE,
    "ListInvitations": MethodPolicy(
        credential_kinds=_HUMANS_AND_SERVERS, plan_exempt_for_sessions=True, permission="manage_members"
    ),
    "RevokeInvitation": _MANAGE,
    # The link's page: its token is the proof.
    "GetInvitation": MethodPolicy(anonymous=True),
    # Joining is the invited person's own act, whatever their role elsewhere.
    "AcceptInvitation": MethodPolicy(
        credential_kinds=_SESSIONS, plan_exempt_for_sessions=True, writes=True, permission="read"
    ),
}


def _member(record: members.MemberRecord, caller_id: str) -> members_pb2.Member:
    return members_pb2.Member(
        user_id=record.user_id,
        email=record.email,
        role=record.role,
        join_time=timestamp(record.joined_at),
        is_caller=record.user_id == caller_id,
        profile_tags=record.profile_tags,
    )


def _invitation(record: invitations.InvitationRecord) -> members_pb2.Invitation:
    return members_pb2.Invitation(
        id=record.id,
        email=record.email,
        role=record.role,
        invited_by=record.invited_by,
        create_time=timestamp(record.created_at),
        expire_time=timestamp(record.expires_at),
        state=record.state,
        profile_tags=record.profile_tags,
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
        tags = list(request.profile_tags.values) if request.HasField("profile_tags") else None
        updated = await members.update_member(call.conn, call.principal, request.user_id, role, tags)
        return _member(updated, call.principal.user_id)

    async def RemoveMember(
        self, request: members_pb2.RemoveMemberRequest, context: grpc.aio.ServicerContext
    ) -> members_pb2.Member:
        call = current_call()
        removed = await members.remove_member(call.conn, call.principal, request.user_id, call.now)
        return _member(removed, call.principal.user_id)

    async def CreateInvitation(
        self, request: members_pb2.CreateInvitationRequest, context: grpc.aio.ServicerContext
    ) -> members_pb2.CreatedInvitation:
        call = current_call()
        record, token = await invitations.create(
            call.conn, call.principal, request.email, request.role, call.now, list(request.profile_tags)
        )
        url = invitations.link(call.settings.base_url, token)
        emailed = await invitations.send(call.conn, call.principal, record, url, call.now, call.settings)
        return members_pb2.CreatedInvitation(invitation=_invitation(record), url=url, emailed=emailed)

    async def ListInvitations(
        self, request: members_pb2.ListInvitationsRequest, context: grpc.aio.ServicerContext
    ) -> members_pb2.ListInvitationsResponse:
        call = current_call()
        found = await invitations.list_open(call.conn, call.principal.org_id, call.now)
        return members_pb2.ListInvitationsResponse(invitations=[_invitation(i) for i in found])

    async def RevokeInvitation(
        self, request: members_pb2.RevokeInvitationRequest, context: grpc.aio.ServicerContext
    ) -> members_pb2.Invitation:
        call = current_call()
        return _invitation(await invitations.revoke(call.conn, call.principal.org_id, request.invitation_id, call.now))

    async def GetInvitation(
        self, request: members_pb2.GetInvitationRequest, context: grpc.aio.ServicerContext
    ) -> members_pb2.InvitationView:
        call = current_call()
        found = await invitations.view(call.conn, request.token, call.now)
        return members_pb2.InvitationView(
            organization_name=found.org_name,
            organization_slug=found.org_slug,
            email=found.email,
            role=found.role,
            state=found.state,
            has_account=found.has_account,
            expire_time=timestamp(found.expires_at),
        )

    async def AcceptInvitation(
        self, request: members_pb2.AcceptInvitationRequest, context: grpc.aio.ServicerContext
    ) -> members_pb2.AcceptedInvitation:
        call = current_call()
        org = await accounts.accept_invitation(call.conn, call.principal, request.token, call.now)
        return members_pb2.AcceptedInvitation(organization_id=org.id, organization_slug=org.slug, role=org.role)
