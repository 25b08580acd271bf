import datetime

from google.api import annotations_pb2 as _annotations_pb2
from google.api import field_behavior_pb2 as _field_behavior_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ClientMetadata(_message.Message):
    __slots__ = ("client_name", "redirect_uris", "grant_types", "response_types", "token_endpoint_auth_method", "scope", "client_uri", "application_type")
    CLIENT_NAME_FIELD_NUMBER: _ClassVar[int]
    REDIRECT_URIS_FIELD_NUMBER: _ClassVar[int]
    GRANT_TYPES_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_TYPES_FIELD_NUMBER: _ClassVar[int]
    TOKEN_ENDPOINT_AUTH_METHOD_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    CLIENT_URI_FIELD_NUMBER: _ClassVar[int]
    APPLICATION_TYPE_FIELD_NUMBER: _ClassVar[int]
    client_name: str
    redirect_uris: _containers.RepeatedScalarFieldContainer[str]
    grant_types: _containers.RepeatedScalarFieldContainer[str]
    response_types: _containers.RepeatedScalarFieldContainer[str]
    token_endpoint_auth_method: str
    scope: str
    client_uri: str
    application_type: str
    def __init__(self, client_name: _Optional[str] = ..., redirect_uris: _Optional[_Iterable[str]] = ..., grant_types: _Optional[_Iterable[str]] = ..., response_types: _Optional[_Iterable[str]] = ..., token_endpoint_auth_method: _Optional[str] = ..., scope: _Optional[str] = ..., client_uri: _Optional[str] = ..., application_type: _Optional[str] = ...) -> None: ...

class RegisterClientRequest(_message.Message):
    __slots__ = ("metadata",)
    METADATA_FIELD_NUMBER: _ClassVar[int]
    metadata: ClientMetadata
    def __init__(self, metadata: _Optional[_Union[ClientMetadata, _Mapping]] = ...) -> None: ...

class OAuthClient(_message.Message):
    __slots__ = ("client_id", "client_secret", "client_id_issued_at", "metadata")
    CLIENT_ID_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SECRET_FIELD_NUMBER: _ClassVar[int]
    CLIENT_ID_ISSUED_AT_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    client_id: str
    client_secret: str
    client_id_issued_at: int
    metadata: ClientMetadata
    def __init__(self, client_id: _Optional[str] = ..., client_secret: _Optional[str] = ..., client_id_issued_at: _Optional[int] = ..., metadata: _Optional[_Union[ClientMetadata, _Mapping]] = ...) -> None: ...

class AuthorizationParameters(_message.Message):
    __slots__ = ("response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge", "code_challenge_method", "resource")
    RESPONSE_TYPE_FIELD_NUMBER: _ClassVar[int]
    CLIENT_ID_FIELD_NUMBER: _ClassVar[int]
    REDIRECT_URI_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    CODE_CHALLENGE_FIELD_NUMBER: _ClassVar[int]
    CODE_CHALLENGE_METHOD_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_FIELD_NUMBER: _ClassVar[int]
    response_type: str
    client_id: str
    redirect_uri: str
    scope: str
    state: str
    code_challenge: str
    code_challenge_method: str
    resource: str
    def __init__(self, response_type: _Optional[str] = ..., client_id: _Optional[str] = ..., redirect_uri: _Optional[str] = ..., scope: _Optional[str] = ..., state: _Optional[str] = ..., code_challenge: _Optional[str] = ..., code_challenge_method: _Optional[str] = ..., resource: _Optional[str] = ...) -> None: ...

class CheckAuthorizationRequest(_message.Message):
    __slots__ = ("parameters",)
    PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    parameters: AuthorizationParameters
    def __init__(self, parameters: _Optional[_Union[AuthorizationParameters, _Mapping]] = ...) -> None: ...

class AuthorizationContext(_message.Message):
    __slots__ = ("client_id", "client_name", "client_uri", "scopes", "redirect_uri", "resource", "client_host")
    CLIENT_ID_FIELD_NUMBER: _ClassVar[int]
    CLIENT_NAME_FIELD_NUMBER: _ClassVar[int]
    CLIENT_URI_FIELD_NUMBER: _ClassVar[int]
    SCOPES_FIELD_NUMBER: _ClassVar[int]
    REDIRECT_URI_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_FIELD_NUMBER: _ClassVar[int]
    CLIENT_HOST_FIELD_NUMBER: _ClassVar[int]
    client_id: str
    client_name: str
    client_uri: str
    scopes: _containers.RepeatedScalarFieldContainer[str]
    redirect_uri: str
    resource: str
    client_host: str
    def __init__(self, client_id: _Optional[str] = ..., client_name: _Optional[str] = ..., client_uri: _Optional[str] = ..., scopes: _Optional[_Iterable[str]] = ..., redirect_uri: _Optional[str] = ..., resource: _Optional[str] = ..., client_host: _Optional[str] = ...) -> None: ...

class PrepareConsentRequest(_message.Message):
    __slots__ = ("parameters",)
    PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    parameters: AuthorizationParameters
    def __init__(self, parameters: _Optional[_Union[AuthorizationParameters, _Mapping]] = ...) -> None: ...

class Consent(_message.Message):
    __slots__ = ("context", "organization", "granted_scopes", "new_scopes")
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_FIELD_NUMBER: _ClassVar[int]
    GRANTED_SCOPES_FIELD_NUMBER: _ClassVar[int]
    NEW_SCOPES_FIELD_NUMBER: _ClassVar[int]
    context: AuthorizationContext
    organization: str
    granted_scopes: _containers.RepeatedScalarFieldContainer[str]
    new_scopes: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, context: _Optional[_Union[AuthorizationContext, _Mapping]] = ..., organization: _Optional[str] = ..., granted_scopes: _Optional[_Iterable[str]] = ..., new_scopes: _Optional[_Iterable[str]] = ...) -> None: ...

class ApproveAuthorizationRequest(_message.Message):
    __slots__ = ("parameters", "organization")
    PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_FIELD_NUMBER: _ClassVar[int]
    parameters: AuthorizationParameters
    organization: str
    def __init__(self, parameters: _Optional[_Union[AuthorizationParameters, _Mapping]] = ..., organization: _Optional[str] = ...) -> None: ...

class AuthorizationCode(_message.Message):
    __slots__ = ("code", "redirect_uri", "state")
    CODE_FIELD_NUMBER: _ClassVar[int]
    REDIRECT_URI_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    code: str
    redirect_uri: str
    state: str
    def __init__(self, code: _Optional[str] = ..., redirect_uri: _Optional[str] = ..., state: _Optional[str] = ...) -> None: ...

class ExchangeTokenRequest(_message.Message):
    __slots__ = ("grant_type", "client_id", "client_secret", "code", "redirect_uri", "code_verifier", "refresh_token", "scope", "resource")
    GRANT_TYPE_FIELD_NUMBER: _ClassVar[int]
    CLIENT_ID_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SECRET_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    REDIRECT_URI_FIELD_NUMBER: _ClassVar[int]
    CODE_VERIFIER_FIELD_NUMBER: _ClassVar[int]
    REFRESH_TOKEN_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_FIELD_NUMBER: _ClassVar[int]
    grant_type: str
    client_id: str
    client_secret: str
    code: str
    redirect_uri: str
    code_verifier: str
    refresh_token: str
    scope: str
    resource: str
    def __init__(self, grant_type: _Optional[str] = ..., client_id: _Optional[str] = ..., client_secret: _Optional[str] = ..., code: _Optional[str] = ..., redirect_uri: _Optional[str] = ..., code_verifier: _Optional[str] = ..., refresh_token: _Optional[str] = ..., scope: _Optional[str] = ..., resource: _Optional[str] = ...) -> None: ...

class TokenResponse(_message.Message):
    __slots__ = ("access_token", "token_type", "expires_in", "refresh_token", "scope")
    ACCESS_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOKEN_TYPE_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_IN_FIELD_NUMBER: _ClassVar[int]
    REFRESH_TOKEN_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    access_token: str
    token_type: str
    expires_in: int
    refresh_token: str
    scope: str
    def __init__(self, access_token: _Optional[str] = ..., token_type: _Optional[str] = ..., expires_in: _Optional[int] = ..., refresh_token: _Optional[str] = ..., scope: _Optional[str] = ...) -> None: ...

class RevokeTokenRequest(_message.Message):
    __slots__ = ("token", "token_type_hint", "client_id", "client_secret")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOKEN_TYPE_HINT_FIELD_NUMBER: _ClassVar[int]
    CLIENT_ID_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SECRET_FIELD_NUMBER: _ClassVar[int]
    token: str
    token_type_hint: str
    client_id: str
    client_secret: str
    def __init__(self, token: _Optional[str] = ..., token_type_hint: _Optional[str] = ..., client_id: _Optional[str] = ..., client_secret: _Optional[str] = ...) -> None: ...

class RevokeTokenResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class IntrospectTokenRequest(_message.Message):
    __slots__ = ("token", "token_type_hint", "client_id", "client_secret")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOKEN_TYPE_HINT_FIELD_NUMBER: _ClassVar[int]
    CLIENT_ID_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SECRET_FIELD_NUMBER: _ClassVar[int]
    token: str
    token_type_hint: str
    client_id: str
    client_secret: str
    def __init__(self, token: _Optional[str] = ..., token_type_hint: _Optional[str] = ..., client_id: _Optional[str] = ..., client_secret: _Optional[str] = ...) -> None: ...

class TokenIntrospection(_message.Message):
    __slots__ = ("active", "scope", "client_id", "token_type", "exp", "iat", "sub", "aud", "organization")
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    CLIENT_ID_FIELD_NUMBER: _ClassVar[int]
    TOKEN_TYPE_FIELD_NUMBER: _ClassVar[int]
    EXP_FIELD_NUMBER: _ClassVar[int]
    IAT_FIELD_NUMBER: _ClassVar[int]
    SUB_FIELD_NUMBER: _ClassVar[int]
    AUD_FIELD_NUMBER: _ClassVar[int]
    ORGANIZATION_FIELD_NUMBER: _ClassVar[int]
    active: bool
    scope: str
    client_id: str
    token_type: str
    exp: int
    iat: int
    sub: str
    aud: str
    organization: str
    def __init__(self, active: _Optional[bool] = ..., scope: _Optional[str] = ..., client_id: _Optional[str] = ..., token_type: _Optional[str] = ..., exp: _Optional[int] = ..., iat: _Optional[int] = ..., sub: _Optional[str] = ..., aud: _Optional[str] = ..., organization: _Optional[str] = ...) -> None: ...

class GetJwksRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Jwks(_message.Message):
    __slots__ = ("keys",)
    KEYS_FIELD_NUMBER: _ClassVar[int]
    keys: _containers.RepeatedCompositeFieldContainer[JsonWebKey]
    def __init__(self, keys: _Optional[_Iterable[_Union[JsonWebKey, _Mapping]]] = ...) -> None: ...

class JsonWebKey(_message.Message):
    __slots__ = ("kty", "kid", "use", "alg", "crv", "x", "y")
    KTY_FIELD_NUMBER: _ClassVar[int]
    KID_FIELD_NUMBER: _ClassVar[int]
    USE_FIELD_NUMBER: _ClassVar[int]
    ALG_FIELD_NUMBER: _ClassVar[int]
    CRV_FIELD_NUMBER: _ClassVar[int]
    X_FIELD_NUMBER: _ClassVar[int]
    Y_FIELD_NUMBER: _ClassVar[int]
    kty: str
    kid: str
    use: str
    alg: str
    crv: str
    x: str
    y: str
    def __init__(self, kty: _Optional[str] = ..., kid: _Optional[str] = ..., use: _Optional[str] = ..., alg: _Optional[str] = ..., crv: _Optional[str] = ..., x: _Optional[str] = ..., y: _Optional[str] = ...) -> None: ...

class ListGrantsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListGrantsResponse(_message.Message):
    __slots__ = ("grants",)
    GRANTS_FIELD_NUMBER: _ClassVar[int]
    grants: _containers.RepeatedCompositeFieldContainer[Grant]
    def __init__(self, grants: _Optional[_Iterable[_Union[Grant, _Mapping]]] = ...) -> None: ...

class Grant(_message.Message):
    __slots__ = ("id", "client_id", "client_name", "scopes", "create_time", "last_token_time", "revoke_time")
    ID_FIELD_NUMBER: _ClassVar[int]
    CLIENT_ID_FIELD_NUMBER: _ClassVar[int]
    CLIENT_NAME_FIELD_NUMBER: _ClassVar[int]
    SCOPES_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    LAST_TOKEN_TIME_FIELD_NUMBER: _ClassVar[int]
    REVOKE_TIME_FIELD_NUMBER: _ClassVar[int]
    id: str
    client_id: str
    client_name: str
    scopes: _containers.RepeatedScalarFieldContainer[str]
    create_time: _timestamp_pb2.Timestamp
    last_token_time: _timestamp_pb2.Timestamp
    revoke_time: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., client_id: _Optional[str] = ..., client_name: _Optional[str] = ..., scopes: _Optional[_Iterable[str]] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_token_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., revoke_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class RevokeGrantRequest(_message.Message):
    __slots__ = ("grant_id",)
    GRANT_ID_FIELD_NUMBER: _ClassVar[int]
    grant_id: str
    def __init__(self, grant_id: _Optional[str] = ...) -> None: ...
