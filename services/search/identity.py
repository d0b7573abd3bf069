"""Who is calling: every route but /health needs `Authorization: Bearer <token>`, one of
- a session token of a person signed in with a local account (`POST /auth/login`),
- an API key of a system (scopes search, ingest, review, admin; groups of its own),
- a JWT from the firm's OpenID Connect provider (PRECEDENTE_OIDC_*), verified against its key set.
PRECEDENTE_AUTH_MODE=none makes everyone one anonymous caller: for local demos only, and it says so.

Also here: per-caller rate limits of costly requests. The routes that sign in and out and manage people and
keys are in services/search/routers/auth.py.
"""

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import asyncpg
import jwt
from fastapi import HTTPException, Request

from precedente.services.search.problems import PASSWORD_CHANGE_HEADER
from precedente.services.search.ratelimit import RateLimiter, retry_after
from precedente.shared import accounts
from precedente.shared.accounts import ROLES, Identity, clean_names
from precedente.shared.settings import Settings

log = logging.getLogger(__name__)

DEMO_USER = "demonstracao"
# What a session whose password must be changed may still do: say who it is, change it, sign out.
WHILE_CHANGE_REQUIRED = frozenset({"/auth/me", "/auth/password", "/auth/logout"})
# Asymmetric algorithms only: an HMAC "JWT" would be signed with a secret the issuer shares with everyone.
OIDC_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]


def unauthorized(detail: str) -> HTTPException:
    return HTTPException(401, detail, headers={"WWW-Authenticate": "Bearer"})


class OidcVerifier:
    """JWT bearer tokens of one issuer: signature against its key set, exp/nbf/iat, iss and (if set) aud."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.jwks_client: jwt.PyJWKClient | None = None
        self.keys: jwt.PyJWKSet | None = None
        if settings.oidc_jwks_file:
            self.keys = jwt.PyJWKSet.from_dict(json.loads(Path(settings.oidc_jwks_file).read_text()))
        elif settings.oidc_jwks_url:
            self.jwks_client = jwt.PyJWKClient(settings.oidc_jwks_url, cache_keys=True, lifespan=3600, timeout=5)
        else:
            raise ValueError("PRECEDENTE_OIDC_ISSUER is set without PRECEDENTE_OIDC_JWKS_URL or _JWKS_FILE")

    def _signing_key(self, token: str) -> Any:
        if self.jwks_client is not None:
            return self.jwks_client.get_signing_key_from_jwt(token).key  # fetches again on an unknown kid
        assert self.keys is not None
        kid = jwt.get_unverified_header(token).get("kid")
        for key in self.keys.keys:
            if kid is None or key.key_id == kid:
                return key.key
        raise jwt.InvalidTokenError("no key of the issuer's key set matches the token's kid")

    async def verify(self, token: str) -> Identity:
        s = self.settings
        try:
            key = await asyncio.to_thread(self._signing_key, token)
            claims = jwt.decode(
                token,
                key,
                algorithms=OIDC_ALGORITHMS,
                issuer=s.oidc_issuer,
                audience=s.oidc_audience or None,
                options={"require": ["exp", "iss", "sub"], "verify_aud": bool(s.oidc_audience)},
                leeway=30,
            )
        except (jwt.PyJWTError, OSError) as err:
            raise unauthorized(f"invalid bearer token: {err}") from err
        user = claims.get(s.oidc_user_claim) or claims["sub"]

        def names(claim: str) -> list[str]:
            value = claims.get(claim) or []
            values = value.split() if isinstance(value, str) else value if isinstance(value, list) else []
            return [v for v in values if isinstance(v, str) and accounts.NAME_PATTERN.fullmatch(v)]

        roles = [r for r in names(s.oidc_roles_claim) if r in ROLES]
        return Identity(str(user), "oidc", sorted(set(names(s.oidc_groups_claim))), roles, credential=f"oidc:{user}")


class Authenticator:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.oidc = OidcVerifier(settings) if settings.oidc_issuer else None
        self.limits = {
            what: RateLimiter(what, per_minute, int(per_minute / 5))
            for what, per_minute in (
                ("search", settings.rate_limit_searches_per_minute),
                ("upload", settings.rate_limit_uploads_per_minute),
            )
        }
        attempts = settings.login_attempts_per_minute
        self.logins = RateLimiter("login.user", attempts, max(int(attempts), 1))  # per user name
        # Per client address, more: behind the gateway every person signs in from the gateway's address.
        self.logins_per_client = RateLimiter("login.client", attempts * 6, max(int(attempts * 6), 1))
        self.anonymous = Identity(DEMO_USER, "anonymous", clean_names(settings.demo_groups, "group"))
        if settings.auth_mode == "none":
            log.warning(
                "AUTHENTICATION IS OFF (PRECEDENTE_AUTH_MODE=none): every caller is %r with groups %s. "
                "For local demonstrations only; never expose this instance.",
                DEMO_USER,
                self.anonymous.groups or "(none: public documents)",
            )

    async def authenticate(self, request: Request) -> Identity:
        if self.settings.auth_mode == "none":
            return self.anonymous
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise unauthorized("authentication required: send Authorization: Bearer <token>")
        if token.startswith((accounts.SESSION_PREFIX, accounts.KEY_PREFIX)):
            who = await accounts.resolve(request.app.state.db, token)
            if who is None:
                raise unauthorized("invalid, expired or revoked credential")
        elif self.oidc is not None and token.count(".") == 2:
            who = await self.oidc.verify(token)
        else:
            raise unauthorized("unknown kind of credential")
        if who.must_change_password and route_of(request) not in WHILE_CHANGE_REQUIRED:
            raise HTTPException(
                403,
                "password change required: this account's password was chosen by someone else; set a new one"
                " with POST /auth/password (current_password, new_password) before anything else",
                headers={PASSWORD_CHANGE_HEADER: "required"},
            )
        return who

    async def throttle(self, db: asyncpg.Pool, who: Identity, what: str) -> None:
        """429 when the caller has spent their budget of searches or uploads: one runaway script or
        crawler must not starve everyone else (the cheap routes are not limited). The budget is kept in the
        database, so it is one budget however many replicas answer."""
        if wait := await self.limits[what].take(db, who.credential or who.user):
            raise HTTPException(429, f"too many {what}s; slow down", headers={"Retry-After": retry_after(wait)})


def route_of(request: Request) -> str:
    """The matched route's template (dependencies run after routing), else the path."""
    return getattr(request.scope.get("route"), "path", request.url.path)
