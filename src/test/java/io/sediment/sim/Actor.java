package io.sediment.sim;

import java.util.List;
import java.util.Set;

/**
 * One party of a simulated run. The scheduler asks every actor for the steps it can take now and
 * runs one of them; a step is atomic with respect to the other actors (they run between steps).
 */
interface Actor {

  String name();

  /** Steps possible now, by name, a step as often as its weight; empty when the actor waits. */
  List<String> enabled();

  /** Takes step {@code step} (one of {@link #enabled()}); returns what it did, for the trace. */
  String step(String step) throws Exception;

  /** Brings the actor to rest: restores it if crashed, commits or aborts what is in flight. */
  default void finish() throws Exception {}

  /**
   * Names of files this actor has written and not yet committed or deleted (checked against orphan
   * removal and the final no-orphan check: they are excused while in flight).
   */
  default Set<String> inFlight() {
    return Set.of();
  }

  /** Wall-clock time its oldest in-flight work started (epoch millis), or Long.MAX_VALUE. */
  default long oldestInFlightMillis() {
    return Long.MAX_VALUE;
  }
}
