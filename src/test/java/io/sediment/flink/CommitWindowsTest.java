package io.sediment.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.flink.serde.StateLayout;
import io.sediment.flink.serde.VersionedCodec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.junit.jupiter.api.Test;

/** Windows are committed in checkpoint order, once, and a failed commit keeps its window. */
class CommitWindowsTest {

  /** Messages that are plain strings (the windows' state is not written here). */
  private static final VersionedCodec<String> STRINGS =
      new VersionedCodec<>() {
        @Override
        public void write(String value, DataOutputView out) throws IOException {
          StateLayout.writeString(value, out);
        }

        @Override
        public String read(DataInputView in, int version) throws IOException {
          return StateLayout.readString(in);
        }
      };

  private final List<String> committed = new ArrayList<>();

  private void commit(long window, List<String> messages, boolean restored) {
    committed.add(window + ":" + messages + (restored ? " restored" : ""));
  }

  @Test
  void messagesBetweenTwoBarriersFormTheWindowOfTheLaterCheckpoint() throws Exception {
    CommitWindows<String> windows = new CommitWindows<>(STRINGS);
    windows.addToNext("a");
    windows.addToNext("b");
    windows.seal(1);
    windows.seal(2); // nothing arrived: no window
    windows.addToNext("c");
    windows.seal(3);
    windows.addToNext("d"); // after the last barrier: not in a window yet

    assertThat(windows.hasWindowsUpTo(2)).isTrue();
    windows.commitUpTo(2, false, this::commit);
    assertThat(committed).containsExactly("1:[a, b]");
    assertThat(windows.hasWindowsUpTo(2)).isFalse();

    windows.commitUpTo(3, false, this::commit);
    windows.commitUpTo(3, false, this::commit);
    assertThat(committed).containsExactly("1:[a, b]", "3:[c]");
    assertThat(windows.takeAll()).containsExactly("d");
  }

  @Test
  void theNextCheckpointsMessagesJoinTheWindowItsSendersNamed() throws Exception {
    CommitWindows<String> windows = new CommitWindows<>(STRINGS);
    windows.add(5, List.of("x"));
    windows.addAllToNext(List.of("y", "z"));
    windows.seal(5);
    windows.add(6, List.of("w"));

    windows.commitUpTo(Long.MAX_VALUE, false, this::commit);

    assertThat(committed).containsExactly("5:[x, y, z]", "6:[w]");
  }

  @Test
  void windowsNamedBySendersAreCommittedInOrder() throws Exception {
    CommitWindows<String> windows = new CommitWindows<>(STRINGS);
    windows.add(5, List.of("x"));
    windows.add(4, List.of("y"));
    windows.add(5, List.of("z"));

    windows.commitUpTo(Long.MAX_VALUE, true, this::commit);

    assertThat(committed).containsExactly("4:[y] restored", "5:[x, z] restored");
    assertThat(windows.size()).isZero();
  }

  @Test
  void aWindowWhoseCommitFailedStays() throws Exception {
    CommitWindows<String> windows = new CommitWindows<>(STRINGS);
    windows.add(1, List.of("a"));
    windows.add(2, List.of("b"));

    assertThatThrownBy(
            () ->
                windows.commitUpTo(
                    2,
                    false,
                    (w, m, r) -> {
                      if (w == 2) {
                        throw new IllegalStateException("commit of window 2 failed");
                      }
                      commit(w, m, r);
                    }))
        .hasMessage("commit of window 2 failed");

    assertThat(committed).containsExactly("1:[a]");
    assertThat(windows.size()).isEqualTo(1);
    assertThat(windows.takeAll()).containsExactly("b");
  }
}
