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

  /** A fresh random commit user, for writers that were given none. */
  public static String random() {
    return UUID.randomUUID().toString();
  }
}
