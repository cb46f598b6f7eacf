import { AuthorizationError } from './authorization-error.js';
import { mergeScopes } from './discovery.js';
import { type GrantOwner, keyOf } from './grants.js';
import { bearerChallenge } from './sdk-auth.js';

/** How many times in a row a server may ask for more access (403 insufficient_scope) before the host stops. */
export const stepUpLimit = 2;
/** A step-up is remembered this long (a state's lifetime). */
const rememberedMs = 10 * 60_000;

/** Scopes servers asked people for with 403 `insufficient_scope`, and how often in a row. */
export class StepUps {
  private readonly asked = new Map<string, { scope: string; count: number; at: number }>();

  constructor(private readonly now: () => Date) {}

  /** A person's connection met a challenge: a 403 `insufficient_scope` names the scope to ask for. */
  note(person: GrantOwner, server: string, response: Response): void {
    if (response.status !== 403) return;
    const { error, scope } = bearerChallenge(response.headers.get('www-authenticate'));
    if (error !== 'insufficient_scope' || !scope) return;
    const key = keyOf(person, server);
    const earlier = this.asked.get(key);
    const fresh = earlier && this.now().getTime() - earlier.at < rememberedMs;
    this.asked.set(key, {
      scope: mergeScopes(earlier?.scope, scope),
      count: (fresh ? earlier.count : 0) + 1,
      at: this.now().getTime(),
    });
  }

  /** The scope the next connect asks for; throws once the server asked more than {@link stepUpLimit} times. */
  pending(person: GrantOwner, server: string): { scope: string } | undefined {
    const found = this.asked.get(keyOf(person, server));
    if (!found || this.now().getTime() - found.at >= rememberedMs) return undefined;
    if (found.count > stepUpLimit)
      throw new AuthorizationError(
        server,
        'scope',
        `the server asked for more access ${found.count} times in a row (now "${found.scope}"); stopped after ${stepUpLimit} tries`,
      );
    return found;
  }

  forget(person: GrantOwner, server: string): void {
    this.asked.delete(keyOf(person, server));
  }
}
