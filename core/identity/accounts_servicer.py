"""herald.identity.v1.AccountService: sign-up, sign-in, sessions, organizations and their settings."""

from __future__ import annotations

import grpc
from herald.identity.v1 import accounts_pb2, accounts_pb2_grpc

from core.errors import Forbidden
from core.identity import accounts, invitations, organization, verification
from core.identity.passwords import HashSlots
from core.identity.principal import CredentialKind
from core.identity.servicer import principal_message
from core.notes import notifications
from core.rpc.context import current_call
from core.rpc.convert import PLAN_TO_PROTO, timestamp
from core.rpc.policy import MethodPolicy

_SESSIONS = frozenset({CredentialKind.SESSION})
# Humans (dashboard) and servers (API keys) change the organization's settings, never agents:
# settings decide how the organization works (docs/api.md, "Organization settings").
_HUMANS_AND_SERVERS = frozenset({CredentialKind.API_KEY, CredentialKind.SESSION})

POLICIES = {
    # The request carries its own proof (a password); hashing runs outside any transaction.
    "SignUp": MethodPolicy(anonymous=True, transactional=False, writes=True),
    "GetSignUpPolicy": MethodPolicy(anonymous=True, transactional=False),
    "SignIn": MethodPolicy(anonymous=True, transactional=False, writes=True),
    # The invitation's token is the proof (docs/teams.md, "Invitations"); hashing runs outside.
    "SignUpByInvitation": MethodPolicy(anonymous=True, transactional=False, writes=True),
    "SignInByInvitation": MethodPolicy(anonymous=True, transactional=False, writes=True),
    # The link's token is the proof (docs/teams.md, "Email verification").
    "VerifyEmail": MethodPolicy(anonymous=True, writes=True),
    "ResendVerification": MethodPolicy(
        credential_kinds=_SESSIONS, plan_exempt_for_sessions=True, writes=True, permission="read"
    ),
    "SignOut": MethodPolicy(permission="read", credential_kinds=_SESSIONS, plan_exempt_for_sessions=True, writes=True),
    "ListOrganizations": MethodPolicy(permission="read", credential_kinds=_SESSIONS, plan_exempt_for_sessions=True),
    # The dashboard's one call per page: the principal, the switcher's list and the unread count.
    "GetSessionView": MethodPolicy(permission="read", credential_kinds=_SESSIONS, plan_exempt_for_sessions=True),
    "SwitchOrganization": MethodPolicy(
        permission="read", credential_kinds=_SESSIONS, plan_exempt_for_sessions=True, writes=True
    ),
    # Every credential of the organization reads its settings; agents with posts:read.
    "GetOrganization": MethodPolicy(permission="read", scopes=frozenset({"posts:read"}), plan_exempt_for_sessions=True),
    "UpdateOrganization": MethodPolicy(
        permission="manage_members", credential_kinds=_HUMANS_AND_SERVERS, plan_exempt_for_sessions=True, writes=True
    ),
}


def _organization(org: accounts.OrganizationView) -> accounts_pb2.Organization:
    return accounts_pb2.Organization(id=org.id, slug=org.slug, role=org.role, plan=PLAN_TO_PROTO[org.plan])


def _settings(settings: organization.OrganizationSettings) -> accounts_pb2.OrganizationSettings:
    approvals = settings.approvals
    return accounts_pb2.OrganizationSettings(
        id=settings.id,
        slug=settings.slug,
        name=settings.name,
        time_zone=settings.time_zone,
        create_time=timestamp(settings.created_at),
        approvals=accounts_pb2.Approvals(
            required_for=list(approvals.required_for),
            profile_tags=list(approvals.profile_tags),
            self_approval=approvals.self_approval,
        ),
    )


def _session(view: accounts.SessionView) -> accounts_pb2.Session:
    return accounts_pb2.Session(
        token=view.token,
        session_id=view.session_id,
        user_id=view.user_id,
        email=view.email,
        organization=_organization(view.organization),
        expire_time=timestamp(view.expires_at),
    )


class AccountServicer(accounts_pb2_grpc.AccountServiceServicer):
    def __init__(self, password_hash_concurrency: int) -> None:
        # argon2id holds 64 MiB per hash (RFC 9106 parameters); waiting hashes queue here.
        self._hashing = HashSlots(password_hash_concurrency)

    async def SignUp(
        self, request: accounts_pb2.SignUpRequest, context: grpc.aio.ServicerContext
    ) -> accounts_pb2.SignUpResponse:
        call = current_call()
        if call.settings.signup != "open":
            raise Forbidden("sign-up is closed here: an operator creates accounts")
        accounts.check_sign_up_fields(email=request.email, password=request.password, org_slug=request.organization)
        # Counted before anything costs: the lookup, and the hash (the costly part).
        await accounts.spend_sign_up_budget(call)
        async with call.transaction() as conn:
            await accounts.check_slug_free(conn, request.organization)
        password_hash = await accounts.hash_new_password(request.password, self._hashing)
        try:
            async with call.transaction(writes=True) as conn:
                await accounts.sign_up(
                    conn,
                    email=request.email,
                    password_hash=password_hash,
                    org_slug=request.organization,
                    plan=call.settings.signup_plan,
                    now=call.now,
                    starter_credits=call.settings.signup_credits,
                    settings=call.settings,
                )
        except accounts.EmailHasAccount:
            pass  # the same answer as a new account's: nothing says the email has one
        return accounts_pb2.SignUpResponse()

    async def SignUpByInvitation(
        self, request: accounts_pb2.SignUpByInvitationRequest, context: grpc.aio.ServicerContext
    ) -> accounts_pb2.Session:
        call = current_call()
        accounts.check_password_shape(request.password)
        await accounts.spend_sign_up_budget(call)
        # Refused links and existing accounts answer before the costly hash.
        async with call.transaction() as conn:
            await accounts.check_invitation_sign_up(conn, request.token, call.now)
        password_hash = await accounts.hash_new_password(request.password, self._hashing)
        async with call.transaction(writes=True) as conn:
            view = await accounts.sign_up_by_invitation(
                conn,
                token=request.token,
                password_hash=password_hash,
                lifetime=call.settings.session_lifetime_seconds,
                now=call.now,
            )
        return _session(view)

    async def SignInByInvitation(
        self, request: accounts_pb2.SignInByInvitationRequest, context: grpc.aio.ServicerContext
    ) -> accounts_pb2.Session:
        call = current_call()
        async with call.transaction() as conn:
            invited = await invitations.view(conn, request.token, call.now)
        await accounts.spend_sign_in_budgets(call, invited.email)
        view = await accounts.sign_in_by_invitation(
            call.transaction,
            request.token,
            request.password,
            call.now,
            self._hashing,
            call.settings.session_lifetime_seconds,
        )
        return _session(view)

    async def VerifyEmail(
        self, request: accounts_pb2.VerifyEmailRequest, context: grpc.aio.ServicerContext
    ) -> accounts_pb2.VerifyEmailResponse:
        call = current_call()
        return accounts_pb2.VerifyEmailResponse(email=await verification.verify(call.conn, request.token, call.now))

    async def ResendVerification(
        self, request: accounts_pb2.ResendVerificationRequest, context: grpc.aio.ServicerContext
    ) -> accounts_pb2.ResendVerificationResponse:
        call = current_call()
        sent = await verification.resend(call.conn, call.principal, call.now, call.settings)
        return accounts_pb2.ResendVerificationResponse(sent=sent)

    async def GetSignUpPolicy(
        self, request: accounts_pb2.GetSignUpPolicyRequest, context: grpc.aio.ServicerContext
    ) -> accounts_pb2.SignUpPolicy:
        return accounts_pb2.SignUpPolicy(open=current_call().settings.signup == "open")

    async def SignIn(
        self, request: accounts_pb2.SignInRequest, context: grpc.aio.ServicerContext
    ) -> accounts_pb2.Session:
        call = current_call()
        await accounts.spend_sign_in_budgets(call, request.email)
        user_id = await accounts.verify_credentials(
            call.transaction, request.email, request.password, call.now, self._hashing
        )
        async with call.transaction(writes=True) as conn:
            view = await accounts.sign_in(
                conn,
                user_id=user_id,
                org_slug=request.organization,
                lifetime=call.settings.session_lifetime_seconds,
                now=call.now,
            )
        return _session(view)

    async def SignOut(
        self, request: accounts_pb2.SignOutRequest, context: grpc.aio.ServicerContext
    ) -> accounts_pb2.SignOutResponse:
        call = current_call()
        await accounts.sign_out(call.conn, call.principal, call.now)
        return accounts_pb2.SignOutResponse()

    async def ListOrganizations(
        self, request: accounts_pb2.ListOrganizationsRequest, context: grpc.aio.ServicerContext
    ) -> accounts_pb2.ListOrganizationsResponse:
        call = current_call()
        orgs = await accounts.list_organizations(call.conn, call.principal.user_id)
        return accounts_pb2.ListOrganizationsResponse(organizations=[_organization(o) for o in orgs])

    async def GetSessionView(
        self, request: accounts_pb2.GetSessionViewRequest, context: grpc.aio.ServicerContext
    ) -> accounts_pb2.SessionView:
        """Two indexed reads beside the session's lookup, in its transaction: the memberships
        (ListOrganizations') and the count ListNotifications answers, so a page pays one call,
        not three, and sees what it just marked read."""
        call = current_call()
        p = call.principal
        orgs = await accounts.list_organizations(call.conn, p.user_id)
        return accounts_pb2.SessionView(
            principal=principal_message(p),
            organizations=[_organization(o) for o in orgs],
            unread_notifications=await notifications.unread(call.conn, p.org_id, p.user_id),
        )

    async def SwitchOrganization(
        self, request: accounts_pb2.SwitchOrganizationRequest, context: grpc.aio.ServicerContext
    ) -> accounts_pb2.Organization:
        call = current_call()
        return _organization(await accounts.switch_organization(call.conn, call.principal, request.organization))

    async def GetOrganization(
        self, request: accounts_pb2.GetOrganizationRequest, context: grpc.aio.ServicerContext
    ) -> accounts_pb2.OrganizationSettings:
        call = current_call()
        return _settings(await organization.get_settings(call.conn, call.principal.org_id))

    async def UpdateOrganization(
        self, request: accounts_pb2.UpdateOrganizationRequest, context: grpc.aio.ServicerContext
    ) -> accounts_pb2.OrganizationSettings:
        call = current_call()
        updated = await organization.update_settings(
            call.conn,
            call.principal.org_id,
            name=request.name if request.HasField("name") else None,
            time_zone=request.time_zone if request.HasField("time_zone") else None,
            approvals_required_for=list(request.approvals_required_for.values)
            if request.HasField("approvals_required_for")
            else None,
            approval_profile_tags=list(request.approval_profile_tags.values)
            if request.HasField("approval_profile_tags")
            else None,
            self_approval=request.self_approval if request.HasField("self_approval") else None,
        )
        return _settings(updated)
