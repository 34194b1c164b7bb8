package io.sediment.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sediment.commit.CommitMessage;
import io.sediment.flink.serde.CommitMessageListCodec;
import io.sediment.flink.serde.StateLayout;
import io.sediment.flink.serde.VersionedStateSerializer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * State and record payloads that were cut short or damaged fail with "Corrupt &lt;what&gt; (layout
 * N): ..." and never make the reader allocate what a damaged count or length says (issue 21, case
 * 5): every truncation of a payload, seeded random damage, and the counts and lengths that broke
 * the readers before.
 */
class StateCorruptionTest {

  private static final String WHAT =
      "Corrupt SQL writer commit messages (layout " + StateLayout.CURRENT + ")";

  private static byte[] payload() throws IOException {
    return CommitMessageListCodec.toBytes(
        List.of(StateFixtures.compactMessage(), StateFixtures.appendMessage()));
  }

  private static List<CommitMessage> read(byte[] bytes) throws IOException {
    return CommitMessageListCodec.fromBytes(bytes, StateCorruptionTest.class.getClassLoader());
  }

  @Test
  void everyTruncationIsReportedAsCorrupt() throws Exception {
    byte[] whole = payload();
    assertThat(read(whole)).hasSize(2);
    for (int n = 4; n < whole.length; n++) {
      byte[] cut = java.util.Arrays.copyOf(whole, n);
      assertThatThrownBy(() -> read(cut))
          .as("cut at %s of %s bytes", n, whole.length)
          .isInstanceOf(IOException.class)
          .hasMessageStartingWith(WHAT);
    }
  }

  /** Any damage reads as some value or fails as corrupt: no other error, no huge allocation. */
  @Test
  void randomDamageReadsOrFailsAsCorrupt() throws Exception {
    byte[] whole = payload();
    for (long seed = 0; seed < 3000; seed++) {
      Random rnd = new Random(seed);
      byte[] damaged = whole.clone();
      int flips = 1 + rnd.nextInt(3);
      for (int i = 0; i < flips; i++) {
        // past the version int: a changed version is refused by name (tested elsewhere)
        damaged[4 + rnd.nextInt(damaged.length - 4)] = (byte) rnd.nextInt(256);
      }
      try {
        read(damaged);
      } catch (IOException e) {
        assertThat(e).as("seed %s", seed).hasMessageStartingWith(WHAT);
      }
    }
  }

  @Test
  void countsAndLengthsAreBoundedByTheBytesLeft() throws Exception {
    byte[] whole = payload();
    // version (4), message count (4), then the first message: partition arity (4), length (4)
    assertThatThrownBy(() -> read(withInt(whole, 4, 0x7fffffff)))
        .hasMessageStartingWith(WHAT)
        .hasMessageContaining("2147483647 element(s) needs 2147483647 byte(s)");
    assertThatThrownBy(() -> read(withInt(whole, 12, 0x7ff00000)))
        .hasMessageStartingWith(WHAT)
        .hasMessageContaining("binary row of 2146435072 bytes");
    assertThatThrownBy(() -> read(withInt(whole, 8, 0x7f000001)))
        .hasMessageStartingWith(WHAT)
        .hasMessageContaining("binary row of arity 2130706433");
    assertThatThrownBy(() -> read(withInt(whole, 8, -7)))
        .hasMessageStartingWith(WHAT)
        .hasMessageContaining("negative arity -7");
  }

  @Test
  void splitsAndEnumeratorStateAreBoundedToo() throws Exception {
    VersionedStateSerializer<CompactEnumeratorState> s =
        new VersionedStateSerializer<>(
            CompactEnumeratorStateCodec.INSTANCE, "compaction enumerator state");
    byte[] whole = s.serialize(StateFixtures.enumeratorState());
    for (int n = 0; n < whole.length; n++) {
      byte[] cut = java.util.Arrays.copyOf(whole, n);
      assertThatThrownBy(() -> s.deserialize(s.getVersion(), cut))
          .as("cut at %s", n)
          .hasMessageStartingWith(
              "Corrupt compaction enumerator state (layout " + StateLayout.CURRENT + ")");
    }
  }

  private static byte[] withInt(byte[] bytes, int offset, int value) {
    byte[] out = bytes.clone();
    ByteBuffer.wrap(out).putInt(offset, value);
    return out;
  }
}
