import { Type, type Static } from '@weft/core/typebox';

/** `GET /auth/config`: how a browser signs in to this server. */
export const AuthConfig = Type.Object(
  {
    api_keys: Type.Boolean({ description: 'Always true: weft API keys are bearer tokens' }),
    oidc: Type.Union(
      [
        Type.Object({
          name: Type.String({ description: 'The provider’s name for a sign-in button' }),
          issuer: Type.String(),
          client_id: Type.String({ description: 'The console’s public client (no secret)' }),
          authorization_endpoint: Type.String({ format: 'uri' }),
          token_endpoint: Type.String({ format: 'uri' }),
          scope: Type.String({ description: 'Scopes to ask for, space-separated' }),
          redirect_path: Type.String({
            description:
              'Path of this server the provider redirects back to (the console’s callback)',
          }),
          code_challenge_method: Type.Literal('S256'),
        }),
        Type.Null(),
      ],
      {
        description:
          'Sign-in with the identity provider (authorization code + PKCE); null when WEFT_OIDC_ISSUER and WEFT_OIDC_CLIENT_ID are not both set',
      },
    ),
  },
  { $id: 'AuthConfig' },
);
export type AuthConfig = Static<typeof AuthConfig>;
