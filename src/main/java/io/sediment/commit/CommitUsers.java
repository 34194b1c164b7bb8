package io.sediment.commit;

import java.util.UUID;

/** Rules for commit user names, which are recorded in snapshots and identify a writer. */
public final class CommitUsers {

  private CommitUsers() {}

  /**
   * Rejects names that are empty, {@code .} or {@code ..}, have leading or trailing white space, or
   * contain {@code /}, {@code \} or a control character; returns the name otherwise.
   */
  public static String validate(String user) {
    if (user == null || user.isEmpty()) {
      throw new IllegalArgumentException("Commit user must not be empty");
    }
    if (user.equals(".") || user.equals("..")) {
      throw new IllegalArgumentException("Commit user must not be '" + user + "'");
    }
    if (!user.equals(user.strip())) {
      throw new IllegalArgumentException(
          "Commit user '" + user + "' must not start or end with white space");
    }
    for (int i = 0; i < user.length(); i++) {
      char c = user.charAt(i);
      if (c == '/' || c == '\\') {
        throw new IllegalArgumentException(
            "Commit user '" + user + "' must not contain '" + c + "'");
      }
      if (Character.isISOControl(c)) {
        throw new IllegalArgumentException(
            "Commit user must not contain control characters (found U+"
                + String.format("%04X", (int) c)
                + " at position "
                + i
                + ")");
      }
    }
    return user;
  }

  /**
   * The user a job commits under after it was restored from checkpoint {@code restored} while its
   * commits had already reached a later identifier: Flink numbers the new run's checkpoints from
   * {@code restored + 1} again, and each of those windows must be told apart from the one of the
   * same id that landed. The job's original user followed by {@code ~r<restored>-<random>}.
   */
  public static String afterRewind(String user, long restored) {
    int mark = user.indexOf(REWIND_MARK);
    String base = mark < 0 ? user : user.substring(0, mark);
    return base + REWIND_MARK + restored + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  private static final String REWIND_MARK = "~r";

  /** A fresh random commit user, for writers that were given none. */
  public static String random() {
    return UUID.randomUUID().toString();
  }
}
