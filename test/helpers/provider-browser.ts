/**
 * A person's browser at the test OpenID provider, over plain HTTPS (trusting its self-signed certificate): follows
 * the provider's redirects with its cookies, signs in at its login page and allows at its consent page, and stops
 * at the first redirect away from the provider (a product's OAuth callback).
 *
 * Source: test/helpers/oidc-provider.ts (login and consent pages).
 */
import { request as httpsRequest } from 'node:https';

/** One HTTP answer. */
export interface Answer { status: number; headers: Record<string, string | string[] | undefined>; body: string }

/** One HTTPS request trusting `ca`, no redirect followed. */
export function send(url: string, ca: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { method: options.method ?? 'GET', headers: options.headers, ca }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { body += chunk; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A browser's cookies for the provider, by name. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  take(answer: Answer): void {
    for (const line of [answer.headers['set-cookie'] ?? []].flat()) {
      const [pair, ...attributes] = line.split(';');
      const name = pair!.slice(0, pair!.indexOf('=')).trim();
      const value = pair!.slice(pair!.indexOf('=') + 1).trim();
      const expired = attributes.some((a) => /^\s*expires=.*1970/i.test(a) || /^\s*max-age=0\s*$/i.test(a));
      if (!value || expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): Record<string, string> {
    return this.cookies.size ? { cookie: [...this.cookies].map(([n, v]) => `${n}=${v}`).join('; ') } : {};
  }
}

/**
 * Goes to `authorizeUrl` as `login`: signs in when asked, allows when consent is asked (or answers `deny`).
 * @returns the URL the provider redirected to outside itself (the callback with code and state, or error), and the
 *   pages seen (`login`, and the consent page's heading)
 */
export async function consentAt(issuer: string, ca: string, authorizeUrl: string, login: string, jar = new CookieJar()): Promise<{ callback: string; pages: string[] }> {
  const browse = async (url: string, init: { method?: string; body?: string } = {}) => {
    let current = url;
    const form: Record<string, string> = init.body ? { 'content-type': 'application/x-www-form-urlencoded' } : {};
    let answer = await send(current, ca, { method: init.method, body: init.body, headers: { ...jar.header(), ...form } });
    for (let hops = 0; ; hops++) {
      jar.take(answer);
      const location = answer.headers.location;
      if (answer.status < 300 || answer.status >= 400 || typeof location !== 'string') return { url: current, answer };
      const next = new URL(location, current).href;
      if (!next.startsWith(issuer) || hops > 10) return { url: next, answer };
      current = next;
      answer = await send(current, ca, { headers: jar.header() });
    }
  };
  let step = await browse(authorizeUrl);
  const pages: string[] = [];
  while (step.url.startsWith(`${issuer}/interaction/`)) {
    const { body } = step.answer;
    if (body.includes('name="login"')) {
      pages.push('login');
      step = await browse(step.url, { method: 'POST', body: new URLSearchParams({ login, password: 'anything' }).toString() });
    } else if (body.includes('name="allow"')) {
      pages.push(body.match(/<h1>([^<]*)<\/h1>/)?.[1] ?? 'consent');
      step = await browse(step.url, { method: 'POST', body: 'allow=yes' });
    } else throw new Error(`unexpected interaction page ${step.answer.status}: ${body.slice(0, 300)}`);
  }
  return { callback: step.url, pages };
}
