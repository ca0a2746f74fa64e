/** The two helpers every witness file builds its witnesses with. */
import type { Model } from './model.ts';
import type { Property } from './properties.ts';

/** A witness: a `sometimes` property named `name`, applying where `appliesTo` says. */
export const sometimes = (name: string, appliesTo: Property['appliesTo'], holds: Property['holds']): Property => ({
  name,
  kind: 'sometimes',
  appliesTo,
  holds,
});

/** Whether some request of the model passes `test`. */
export const anyRequest = (m: Model, test: (r: number) => boolean): boolean => {
  for (let r = 0; r < m.n; r++) if (test(r)) return true;
  return false;
};
