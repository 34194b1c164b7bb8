package io.sediment.flink.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every transition of what a streaming read's readers hold, as its enumerator tracks it. */
class HeldSplitsTest {

  @Test
  void givenAndReportedSplitsCountUntilFinished() {
    HeldSplits held = new HeldSplits();
    held.given("a", 3, 0);
    held.given("b", -2, 1);
    assertThat(held.values()).containsExactlyInAnyOrder(3L, -2L);
    held.reported(0, Map.of("a", 3L), List.of());
    held.reported(1, Map.of(), List.of("b"));
    assertThat(held.toMap()).containsOnly(Map.entry("a", 3L));
    held.reported(0, Map.of(), List.of("a"));
    assertThat(held.values()).isEmpty();
  }

  /**
   * A restored checkpoint's splits count until every reader registered; those a reader reports
   * again stay, the others (finished while their report was on the way) go.
   */
  @Test
  void aRestoredCheckpointsSplitsGoOnceEveryReaderRegisteredWithoutThem() {
    HeldSplits held = HeldSplits.restored(Map.of("a", 3L, "b", 4L, "c", -2L));
    held.reported(0, Map.of("a", 3L), List.of());
    assertThat(held.readerRegistered(0, false)).isZero();
    assertThat(held.toMap()).containsOnlyKeys("a", "b", "c");
    held.reported(1, Map.of("c", -2L), List.of());
    assertThat(held.readerRegistered(1, true)).isEqualTo(1);
    assertThat(held.toMap()).containsOnly(Map.entry("a", 3L), Map.entry("c", -2L));
  }

  /**
   * A reader reset alone: the splits given to it after the checkpoint are handed back and gone;
   * those it held count until it registers again, and stay if it reports them; other readers'
   * splits are not touched.
   */
  @Test
  void aResetReadersSplitsGoWhenItRegistersWithoutThem() {
    HeldSplits held = new HeldSplits();
    held.given("a", 3, 0);
    held.given("b", 4, 0);
    held.given("c", 5, 0);
    held.given("d", 6, 1);
    held.readerReset(0, List.of("c"));
    assertThat(held.toMap()).containsOnlyKeys("a", "b", "d");
    held.reported(0, Map.of("a", 3L), List.of());
    assertThat(held.readerRegistered(0, true)).isEqualTo(1);
    assertThat(held.toMap()).containsOnly(Map.entry("a", 3L), Map.entry("d", 6L));
    held.readerReset(1, List.of());
    assertThat(held.readerRegistered(0, true)).as("another reader's registration").isZero();
    assertThat(held.toMap()).containsOnlyKeys("a", "d");
    assertThat(held.readerRegistered(1, true)).isEqualTo(1);
    assertThat(held.toMap()).containsOnlyKeys("a");
  }
}
