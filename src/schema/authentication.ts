import type { ApplicationRow } from '../db/rows.js';
import {
  type RevokedAuthToken,
  revokeOwnAuthToken,
  setInstanceApplicationDisabled,
} from '../resolvers/revocation.js';
import { builder } from './builder.js';

const Application = builder.objectRef<ApplicationRow>('Application').implement({
  description: 'Client credentials of the instance (never their secret).',
  fields: (t) => ({
    id: t.exposeID('id'),
    clientId: t.exposeString('clientId', { description: 'What the application signs in with (client_id).' }),
    name: t.exposeString('name'),
    disabledAt: t.field({
      type: 'DateTime',
      nullable: true,
      description:
        'When it was disabled: it can then neither sign in nor use its tokens. Null while enabled.',
      resolve: (application) => application.disabledAt,
    }),
    createdAt: t.field({ type: 'DateTime', resolve: (application) => application.createdAt }),
  }),
});

const ApplicationPayload = builder
  .objectRef<{ application: ApplicationRow }>('ApplicationPayload')
  .implement({
    fields: (t) => ({ application: t.field({ type: Application, resolve: (p) => p.application }) }),
  });

builder.mutationField('revokeAuthToken', (t) =>
  t.field({
    type: builder.objectRef<RevokedAuthToken>('RevokeAuthTokenPayload').implement({
      fields: (f) => ({
        tokenId: f.exposeID('tokenId', { description: 'The id of the revoked auth token.' }),
        revokedAt: f.field({ type: 'DateTime', resolve: (p) => p.revokedAt }),
      }),
    }),
    description:
      'Revokes the auth token this request was sent with, and the refresh token issued with it (sign out). ' +
      'Within a second no instance accepts either, their sse_jwts stop working, and the subscriptions ' +
      'opened with the token end (a graphql-ws connection closes with 4403).',
    resolve: (_root, _args, ctx) => revokeOwnAuthToken(ctx),
  }),
);

builder.mutationField('disableApplication', (t) =>
  t.field({
    type: ApplicationPayload,
    description:
      'Disables client credentials of the instance (instance admins only): within a second no instance ' +
      'accepts its tokens, which are revoked, and it cannot sign in until enabled again. NOT_FOUND for a ' +
      'client id of no application of the instance.',
    args: { clientId: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => ({
      application: await setInstanceApplicationDisabled(ctx, String(args.clientId), true),
    }),
  }),
);

builder.mutationField('enableApplication', (t) =>
  t.field({
    type: ApplicationPayload,
    description:
      'Enables disabled client credentials of the instance again (instance admins only): they can sign in ' +
      'again; the tokens revoked when they were disabled stay revoked.',
    args: { clientId: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => ({
      application: await setInstanceApplicationDisabled(ctx, String(args.clientId), false),
    }),
  }),
);
