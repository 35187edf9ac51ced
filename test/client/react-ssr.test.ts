import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { createAuthClient } from '../../src/client';
import { AuthProvider, useSession } from '../../src/react';
import { SessionLine } from './react-views';

describe('authgate/react rendered on the server', () => {
  const calls: string[] = [];
  const client = createAuthClient({
    baseUrl: 'http://127.0.0.1:9',
    fetch: async (url) => {
      calls.push(String(url));
      return new Response('{}');
    },
  });

  it('renders the session the server knew, asks nothing and touches no browser global', () => {
    const html = renderToString(createElement(AuthProvider, { client, initialSession: { status: 'signed-in', user: { id: 'local_1', name: 'ann', picture: '' } } }, createElement(SessionLine)));
    expect(html).toContain('signed-in ann orgs:loading:0');
    expect(calls).toEqual([]);
  });

  it("renders 'loading' without a known session", () => {
    expect(renderToString(createElement(AuthProvider, { client }, createElement(SessionLine)))).toContain('loading - orgs:loading:0');
  });

  it('says where the provider is missing', () => {
    const Bare = (): null => (useSession(), null);
    expect(() => renderToString(createElement(Bare))).toThrow(/put <AuthProvider client=\{\.\.\.\}> above/);
  });
});
