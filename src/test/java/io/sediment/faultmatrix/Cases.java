package io.sediment.faultmatrix;

/** Names a matrix case in its failure, so a report says which case failed and how. */
final class Cases {

  private Cases() {}

  interface Body {
    void run() throws Throwable;
  }

  /** Runs {@code body}; a failure is rethrown as an AssertionError starting with {@code name}. */
  static void named(String name, Body body) throws Throwable {
    try {
      body.run();
    } catch (Throwable e) {
      AssertionError named = new AssertionError("[" + name + "] " + e, e);
      throw named;
    }
  }
}
