import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SAML } from '@node-saml/node-saml';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.js';
import { type SamlIdp, startSamlIdp } from '../helpers/saml-idp.js';
import { nodeSamlSp, verdict } from './node-saml-sp.js';

// The IdP's sign-in page in real Chromium, between a stand-in SP on 127.0.0.1 (node-saml behind node:http): the
// AuthnRequest goes out by redirect, the page posts the response back by itself (or by its button, scripts off), and
// the SP's SameSite=Lax cookie comes along only when the IdP is the same site.

/** What the stand-in SP's ACS received. */
interface Arrival {
  cookie: string | undefined;
  relayState: string | null;
  nameId: unknown;
}

let browser: Browser;
let acs: Server;
let acsUrl: string;
let sp: SAML;
const arrivals: Arrival[] = [];
const idps: SamlIdp[] = [];

beforeAll(async () => {
  acs = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/start') {
      // A real SP's session cookie, set before it sends the browser to the IdP.
      sp.getAuthorizeUrlAsync('relay-browser', undefined, {}).then((to) =>
        res.writeHead(303, { Location: to, 'Set-Cookie': 'sp_session=1; Path=/; HttpOnly; SameSite=Lax' }).end(),
      );
      return;
    }
    if (req.method !== 'POST' || req.url !== '/acs') {
      res.writeHead(404).end(); // the browser asks for a favicon too
      return;
    }
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', async () => {
      const form = new URLSearchParams(body);
      const v = await verdict(sp, form.get('SAMLResponse') ?? '');
      arrivals.push({
        cookie: req.headers.cookie,
        relayState: form.get('RelayState'),
        nameId: v.ok ? v.profile.nameID : v.error,
      });
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end(v.ok ? `signed in as ${v.profile.nameID}` : v.error);
    });
  });
  await new Promise<void>((resolve) => acs.listen(0, '127.0.0.1', resolve));
  acsUrl = `http://127.0.0.1:${(acs.address() as AddressInfo).port}/acs`;
  browser = await launchChromium();
});

afterEach(async () => {
  await Promise.all(idps.splice(0).map((i) => i.close()));
  arrivals.splice(0);
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => acs.close(resolve));
});

/** Starts an IdP at `host` and an SP trusting it; opens the SP's start page in a fresh browser context. */
async function signIn(host: '127.0.0.1' | 'localhost', javaScriptEnabled: boolean): Promise<string> {
  const idp = await startSamlIdp({ host });
  idps.push(idp);
  sp = nodeSamlSp(idp, { callbackUrl: acsUrl });
  const context = await browser.newContext({ javaScriptEnabled });
  try {
    const page = await context.newPage();
    const start = acsUrl.replace(/\/acs$/, '/start');
    if (javaScriptEnabled) {
      await Promise.all([page.waitForURL(acsUrl), page.goto(start)]);
    } else {
      await page.goto(start);
      expect(new URL(page.url()).origin).toBe(idp.url);
      await Promise.all([page.waitForURL(acsUrl), page.getByRole('button', { name: 'Continue' }).click()]);
    }
    expect(idp.requests.map((r) => [r.acsUrl, r.relayState])).toEqual([[acsUrl, 'relay-browser']]);
    return (await page.textContent('body')) ?? '';
  } finally {
    await context.close();
  }
}

describe('in Chromium', () => {
  it('posts itself to the ACS: signed in, RelayState back, no SameSite=Lax cookie from another site (localhost)', async () => {
    expect(await signIn('localhost', true)).toBe('signed in as idp-user-0001');
    expect(arrivals).toEqual([{ cookie: undefined, relayState: 'relay-browser', nameId: 'idp-user-0001' }]);
  });

  it('brings the SameSite=Lax cookie along when the IdP is the same site (127.0.0.1, another port)', async () => {
    expect(await signIn('127.0.0.1', true)).toBe('signed in as idp-user-0001');
    expect(arrivals).toEqual([{ cookie: 'sp_session=1', relayState: 'relay-browser', nameId: 'idp-user-0001' }]);
  });

  it('with scripts off, posts when the person presses Continue', async () => {
    expect(await signIn('localhost', false)).toBe('signed in as idp-user-0001');
    expect(arrivals).toHaveLength(1);
  });
});
