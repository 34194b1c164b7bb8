package io.sediment.sim;

import java.util.ArrayList;
import java.util.List;

/** The steps a simulated run took, for its failure message. */
final class Trace {

  private final List<String> steps = new ArrayList<>();

  void add(String actor, String what) {
    steps.add(steps.size() + " " + actor + ": " + what);
  }

  /** Replaces the last step of {@code actor} (written before it ran) with what it did. */
  void replaceLast(String actor, String what) {
    steps.set(steps.size() - 1, (steps.size() - 1) + " " + actor + ": " + what);
  }

  int size() {
    return steps.size();
  }

  @Override
  public String toString() {
    return String.join("\n  ", steps);
  }
}
