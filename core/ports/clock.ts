/** Time source. Domain code never calls `Date.now()`; it receives a Clock. */
export interface Clock {
  /** The current instant. */
  now(): Date;
}
