import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { dirname } from 'node:path';
import { redirectQuery, selfSignedKeys, type PartyKeys } from './saml-kit';
import * as samlify from 'samlify';

/**
 * A customer's identity provider for the example: a SAML IdP of another implementation than
 * authgate's (samlify in its IdP role) with a sign-in page of its own, as a company's Okta or
 * Entra ID would be. Its key and certificate are kept in a file, so a restart keeps the connection.
 */
export interface CustomerIdp {
  /** `http://127.0.0.1:<port>` (`https://` with a certificate). */
  origin: string;
  /** Its SAML metadata, for the connection. */
  metadata: string;
  /** Trusts a service provider by its metadata (the connection's SP metadata). */
  trust(spMetadata: string): void;
  close(): Promise<void>;
}

const html = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

async function keysIn(file: string): Promise<PartyKeys> {
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as PartyKeys;
  const made = await selfSignedKeys('Customer IdP (authgate example)', 3650);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(made), { mode: 0o600 });
  return made;
}

const PAGE = (pending: string, error = ''): string => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Customer IdP</title>
<style>body{font:16px system-ui,sans-serif;max-width:26rem;margin:4rem auto;padding:0 1rem;color:#1f2933}h1{font-size:1.3rem}label{display:block;margin:.8rem 0}input{width:100%;padding:.5rem;font:inherit}button{padding:.6rem 1.2rem;font:inherit;font-weight:600;background:#7c3aed;color:#fff;border:0;border-radius:.4rem}.hint{color:#52606d;font-size:.9rem}.error{color:#b42318}</style></head>
<body><h1>Customer Inc. sign-in</h1><p class="hint">This is the example's stand-in for a company's identity provider (Okta, Entra ID...). Anyone of <code>customer.test</code> may sign in here.</p>
<form method="post" action="/login"><input type="hidden" name="pending" value="${html(pending)}">
<label>Work e-mail <input name="email" id="idp-email" value="someone@customer.test" autocomplete="off"></label>
<label>Name <input name="name" id="idp-name" value="Someone at Customer"></label>
<p class="error">${html(error)}</p><button type="submit" id="idp-sign-in">Sign in</button></form></body></html>`;

const POST_BACK = (acs: string, response: string, relayState: string): string => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Signing you in…</title></head>
<body onload="document.forms[0].submit()"><form method="post" action="${html(acs)}"><input type="hidden" name="SAMLResponse" value="${html(response)}"><input type="hidden" name="RelayState" value="${html(relayState)}">
<noscript><button type="submit">Continue</button></noscript></form></body></html>`;

/** Starts the customer IdP on 127.0.0.1:`port`, keeping its key in `keysFile`; over https with `tls` (a PEM key and certificate). */
export async function startCustomerIdp(port: number, keysFile: string, tls?: { key: string; cert: string }): Promise<CustomerIdp> {
  // The example IdP trusts the metadata the app gave it; schema checks are the app's affair.
  samlify.setSchemaValidator({ validate: () => Promise.resolve('skipped') });
  const keys = await keysIn(keysFile);
  const origin = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  const idp = samlify.IdentityProvider({
    entityID: `${origin}/metadata`,
    signingCert: keys.certificate,
    privateKey: keys.privateKey,
    requestSignatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    wantAuthnRequestsSigned: true,
    singleSignOnService: [{ Binding: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect', Location: `${origin}/sso` }],
    singleLogoutService: [{ Binding: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect', Location: `${origin}/slo` }],
    nameIDFormat: ['urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress'],
    loginResponseTemplate: {
      context: samlify.SamlLib.defaultLoginResponseTemplate.context,
      attributes: [
        { name: 'email', valueTag: 'email', nameFormat: 'urn:oasis:names:tc:SAML:2.0:attrname-format:basic', valueXsiType: 'xs:string' },
        { name: 'displayName', valueTag: 'name', nameFormat: 'urn:oasis:names:tc:SAML:2.0:attrname-format:basic', valueXsiType: 'xs:string' },
      ],
    },
  });
  let sp: ReturnType<typeof samlify.ServiceProvider> | undefined;
  const pending = new Map<string, { request: unknown; relayState: string }>();

  const server: Server = (tls ? createTlsServer.bind(undefined, tls) : createServer)((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', origin);
      const send = (status: number, type: string, body: string): void => void res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
      if (url.pathname === '/metadata') return send(200, 'application/samlmetadata+xml', idp.getMetadata());
      if (!sp) return send(503, 'text/plain', 'the IdP trusts no app yet');
      const { query, octetString } = redirectQuery(req.url ?? '');
      if (req.method === 'GET' && url.pathname === '/slo') {
        // The app's signed logout request: the IdP "ends its session" and answers.
        try {
          const request = await idp.parseLogoutRequest(sp, 'redirect', { query, octetString } as never);
          const answer = idp.createLogoutResponse(sp, request as never, 'redirect', query.RelayState ?? '');
          return void res.writeHead(302, { location: (answer as { context: string }).context }).end();
        } catch (err) {
          return send(400, 'text/plain', `the logout request was refused: ${(err as Error).message}`);
        }
      }
      if (req.method === 'GET' && url.pathname === '/sso') {
        try {
          const request = await idp.parseLoginRequest(sp, 'redirect', { query, octetString } as never);
          const id = randomBytes(12).toString('hex');
          pending.set(id, { request, relayState: query.RelayState ?? '' });
          return send(200, 'text/html; charset=utf-8', PAGE(id));
        } catch (err) {
          return send(400, 'text/plain', `the sign-in request was refused: ${(err as Error).message}`);
        }
      }
      if (req.method === 'POST' && url.pathname === '/login') {
        let body = '';
        for await (const chunk of req) body += chunk;
        const form = new URLSearchParams(body);
        const waiting = pending.get(form.get('pending') ?? '');
        if (!waiting) return send(400, 'text/plain', 'no sign-in in progress: start again from the app');
        const email = (form.get('email') ?? '').trim().toLowerCase();
        if (!/^[^@\s]+@customer\.test$/.test(email)) return send(200, 'text/html; charset=utf-8', PAGE(form.get('pending') ?? '', 'Only addresses of customer.test sign in here.'));
        pending.delete(form.get('pending') ?? '');
        const name = (form.get('name') ?? '').trim().slice(0, 100) || email;
        const made = await idp.createLoginResponse(
          sp,
          waiting.request as never,
          'post',
          { email },
          {
            relayState: waiting.relayState,
            customTagReplacement: (template: string) => {
              const id = `_${randomBytes(16).toString('hex')}`;
              const now = new Date();
              const later = new Date(now.getTime() + 5 * 60_000).toISOString();
              const acs = sp!.entityMeta.getAssertionConsumerService('post') as string;
              const values: Record<string, string> = {
                ID: id,
                AssertionID: `_${randomBytes(16).toString('hex')}`,
                Destination: acs,
                Audience: sp!.entityMeta.getEntityID(),
                EntityID: sp!.entityMeta.getEntityID(),
                SubjectRecipient: acs,
                Issuer: idp.entityMeta.getEntityID(),
                IssueInstant: now.toISOString(),
                StatusCode: 'urn:oasis:names:tc:SAML:2.0:status:Success',
                ConditionsNotBefore: now.toISOString(),
                ConditionsNotOnOrAfter: later,
                SubjectConfirmationDataNotOnOrAfter: later,
                AssertionConsumerServiceURL: acs,
                NameIDFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
                NameID: email,
                InResponseTo: (waiting.request as { extract?: { request?: { id?: string } } }).extract?.request?.id ?? '',
                AuthnStatement: `<saml:AuthnStatement AuthnInstant="${now.toISOString()}" SessionIndex="_${randomBytes(8).toString('hex')}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>`,
                attrEmail: html(email),
                attrName: html(name),
              };
              return { id, context: samlify.SamlLib.replaceTagsByValue(template, values) };
            },
          },
        );
        return send(200, 'text/html; charset=utf-8', POST_BACK(sp.entityMeta.getAssertionConsumerService('post') as string, (made as { context: string }).context, waiting.relayState));
      }
      send(404, 'text/plain', 'not found');
    })().catch(() => void res.writeHead(500).end());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    origin,
    metadata: idp.getMetadata(),
    trust(spMetadata) {
      sp = samlify.ServiceProvider({ metadata: spMetadata });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
