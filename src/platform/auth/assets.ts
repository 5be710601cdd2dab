import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { BaseCtx } from '../context.js';
import type { PageCall } from '../http/page.js';
import type { Reply } from '../http/reply.js';

// The scripts of the sign-in pages' passkey buttons (docs/mfa.md), served from this origin: the pages' CSP allows
// `script-src 'self'` on the pages that have such a button, and no inline script.

/**
 * The pages' own script: shows each passkey button (`data-passkey`) where the browser has WebAuthn, and on a click
 * runs the ceremony with the button's options (`data-options`) through @simplewebauthn/browser
 * (`SimpleWebAuthnBrowser`), puts the credential's JSON into the form's `passkey` field and submits the form (by the
 * button `data-submitter` names, if any). Plain ES2017, no build step; a cancelled ceremony says so and leaves the
 * page as it was.
 */
export const PASSKEY_SCRIPT = `'use strict';
(function () {
  var lib = window.SimpleWebAuthnBrowser;
  if (!lib || !lib.browserSupportsWebAuthn()) return;
  document.querySelectorAll('button[data-passkey]').forEach(function (button) {
    var form = button.form;
    var field = form && form.querySelector('input[name="passkey"]');
    if (!field) return;
    var box = button.closest('.passkey') || button;
    var status = box.querySelector('[data-passkey-status]');
    var say = function (text) { if (status) status.textContent = text; };
    box.hidden = false;
    button.addEventListener('click', function () {
      var id = button.getAttribute('data-submitter');
      var submitter = id ? document.getElementById(id) : null;
      if (!form.reportValidity()) return;
      var register = button.getAttribute('data-passkey') === 'register';
      var optionsJSON = JSON.parse(button.getAttribute('data-options'));
      button.disabled = true;
      say('Waiting for your passkey…');
      (register ? lib.startRegistration : lib.startAuthentication)({ optionsJSON: optionsJSON }).then(
        function (credential) {
          field.value = JSON.stringify(credential);
          say('');
          if (form.requestSubmit) form.requestSubmit(submitter);
          else if (submitter) submitter.click();
          else form.submit();
        },
        function (err) {
          button.disabled = false;
          say(err && err.name === 'NotAllowedError'
            ? 'No passkey was used: it was cancelled, or took too long.'
            : 'The passkey did not work' + (err && err.message ? ': ' + err.message : '.'));
        },
      );
    });
  });
})();
`;

/** How long a browser may keep the scripts: a few minutes, as the signing keys (an upgrade may change them). */
const CACHE = 'public, max-age=300';

function script(c: PageCall, text: string): Reply {
  return c.body(text, 200, {
    'Content-Type': 'text/javascript; charset=utf-8',
    'Cache-Control': CACHE,
    'X-Content-Type-Options': 'nosniff',
  });
}

/** `GET {auth_url}/assets/passkeys.js`: `PASSKEY_SCRIPT`. */
export function passkeyScript(_ctx: BaseCtx, c: PageCall): Reply {
  return script(c, PASSKEY_SCRIPT);
}

let library: Promise<string> | undefined;

/**
 * @simplewebauthn/browser's own bundle (`dist/bundle/index.umd.min.js`, which defines `SimpleWebAuthnBrowser`), read
 * once from the installed package: its `exports` name no such file, so it is found beside the package's entry.
 */
function libraryText(): Promise<string> {
  library ??= (async () => {
    const entry = createRequire(import.meta.url).resolve('@simplewebauthn/browser');
    return readFile(join(dirname(entry), '..', 'dist', 'bundle', 'index.umd.min.js'), 'utf8');
  })();
  library.catch(() => {
    library = undefined;
  });
  return library;
}

/** `GET {auth_url}/assets/simplewebauthn-browser.js`: the WebAuthn library the pages' script calls. */
export async function webauthnBrowserScript(_ctx: BaseCtx, c: PageCall): Promise<Reply> {
  return script(c, await libraryText());
}
