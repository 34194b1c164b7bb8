package io.sediment.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The names a commit user may have, and the users a job commits under after a rewind. */
class CommitUsersTest {

  @ParameterizedTest
  @ValueSource(strings = {"job", "compactor-1", "a b", "ü~r1-x", ".hidden", "..."})
  void acceptsNamesThatAreSafeInPathsAndLogs(String user) {
    assertThat(CommitUsers.validate(user)).isEqualTo(user);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", ".", "..", " job", "job ", "a/b", "a\\b", "a\nb", "a\u0000b"})
  void refusesNamesThatAreNot(String user) {
    assertThatThrownBy(() -> CommitUsers.validate(user))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Commit user");
  }

  @Test
  void refusesNoName() {
    assertThatThrownBy(() -> CommitUsers.validate(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Commit user must not be empty");
  }

  @Test
  void aRewoundJobCommitsUnderItsOwnUserMarkedWithTheRestoredCheckpoint() {
    String first = CommitUsers.afterRewind("job", 5);
    assertThat(first).matches("job~r5-[0-9a-f]{8}");
    // A second rewind replaces the mark: the name does not grow with every restore.
    String second = CommitUsers.afterRewind(first, 12);
    assertThat(second).matches("job~r12-[0-9a-f]{8}");
    assertThat(CommitUsers.afterRewind("job", 5)).isNotEqualTo(first);
    assertThat(CommitUsers.validate(second)).isEqualTo(second);
  }

  @Test
  void randomUsersAreValidAndDistinct() {
    Set<String> users = new HashSet<>();
    for (int i = 0; i < 100; i++) {
      users.add(CommitUsers.validate(CommitUsers.random()));
    }
    assertThat(users).hasSize(100);
  }
}
