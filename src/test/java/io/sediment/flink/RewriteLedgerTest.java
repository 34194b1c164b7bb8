package io.sediment.flink;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The rewrite operator's lifecycle of rewrites, each transition and generated runs of them. */
class RewriteLedgerTest {

  @Test
  void aRewriteEmittedBeforeABarrierIsNeverDiscarded() {
    RewriteLedger<String> ledger = new RewriteLedger<>(false);
    ledger.started();
    assertThat(ledger.running()).isOne();
    ledger.ended("a");
    assertThat(ledger.running()).isZero();
    assertThat(ledger.takeEnded("a")).isTrue();
    assertThat(ledger.takeEnded("a")).as("taken once").isFalse();
    ledger.emitted("a", true);
    ledger.barrier();

    RewriteLedger.Discarded<String> d = ledger.close();
    assertThat(d.notEmitted()).isEmpty();
    assertThat(d.emittedAfterBarrier()).isEmpty();
  }

  @Test
  void closingDiscardsWhatEndedUnemittedAndWhatStreamingEmittedAfterTheBarrier() {
    RewriteLedger<String> ledger = new RewriteLedger<>(false);
    for (String r : List.of("emitted", "failed", "unemitted")) {
      ledger.started();
      ledger.ended(r);
    }
    ledger.takeEnded("emitted");
    ledger.emitted("emitted", true);
    ledger.takeEnded("failed");
    ledger.emitted("failed", false); // its rewriter deleted its outputs

    RewriteLedger.Discarded<String> d = ledger.close();
    assertThat(d.notEmitted()).containsExactly("unemitted");
    assertThat(d.emittedAfterBarrier()).containsExactly("emitted");
    assertThat(ledger.takeEnded("unemitted")).as("discarded, not emitted after close").isFalse();
    assertThat(ledger.close().notEmitted()).as("forgotten once discarded").isEmpty();
  }

  @Test
  void aBatchOperatorKeepsWhatItEmittedForTheCommitAtTheEnd() {
    RewriteLedger<String> ledger = new RewriteLedger<>(true);
    ledger.started();
    ledger.ended("a");
    ledger.takeEnded("a");
    ledger.emitted("a", true);

    assertThat(ledger.close().emittedAfterBarrier()).isEmpty();
  }

  /**
   * Generated runs of an operator (rewrites starting, ending, emitted in any order with barriers
   * between, then a close or a drained end): every rewrite that succeeded ends up exactly once
   * either in a checkpoint's window (emitted before a barrier, or by a batch operator) or in what
   * the close discards; never both, never neither. A failed one is never committed and never
   * discarded after its emit.
   */
  @Test
  void everySuccessfulRewriteEndsInAWindowOrIsDiscardedExactlyOnce() {
    for (int seed = 0; seed < 2000; seed++) {
      Random random = new Random(seed);
      boolean bounded = random.nextInt(3) == 0;
      RewriteLedger<Integer> ledger = new RewriteLedger<>(bounded);
      List<Integer> runningNow = new ArrayList<>();
      List<Integer> endedNow = new ArrayList<>();
      Set<Integer> failed = new HashSet<>();
      Set<Integer> pendingWindow = new HashSet<>();
      Set<Integer> inWindow = new HashSet<>();
      int next = 0;
      int steps = 1 + random.nextInt(30);
      for (int step = 0; step < steps; step++) {
        switch (random.nextInt(4)) {
          case 0 -> {
            ledger.started();
            runningNow.add(next++);
          }
          case 1 -> {
            if (!runningNow.isEmpty()) {
              Integer r = runningNow.remove(random.nextInt(runningNow.size()));
              if (random.nextInt(4) == 0) {
                failed.add(r);
              }
              ledger.ended(r);
              endedNow.add(r);
            }
          }
          case 2 -> {
            if (!endedNow.isEmpty()) {
              Integer r = endedNow.remove(random.nextInt(endedNow.size()));
              assertThat(ledger.takeEnded(r)).as("seed %d", seed).isTrue();
              ledger.emitted(r, !failed.contains(r));
              if (!failed.contains(r)) {
                (bounded ? inWindow : pendingWindow).add(r);
              }
            }
          }
          default -> {
            ledger.barrier();
            inWindow.addAll(pendingWindow);
            pendingWindow.clear();
          }
        }
        assertThat(ledger.running()).as("seed %d", seed).isEqualTo(runningNow.size());
      }
      // The operator closes once its rewrite thread stopped: running rewrites end first.
      for (Integer r : runningNow) {
        ledger.ended(r);
        endedNow.add(r);
      }
      RewriteLedger.Discarded<Integer> discarded = ledger.close();

      assertThat(discarded.notEmitted())
          .as("seed %d", seed)
          .containsExactlyInAnyOrderElementsOf(endedNow);
      assertThat(discarded.emittedAfterBarrier())
          .as("seed %d", seed)
          .containsExactlyInAnyOrderElementsOf(pendingWindow)
          .noneMatch(r -> inWindow.contains(r) || failed.contains(r));
      Set<Integer> accounted = new HashSet<>(inWindow);
      accounted.addAll(discarded.notEmitted());
      accounted.addAll(discarded.emittedAfterBarrier());
      for (int r = 0; r < next; r++) {
        if (!failed.contains(r)) {
          assertThat(accounted).as("seed %d: rewrite %d", seed, r).contains(r);
        }
      }
      assertThat(
              inWindow.size()
                  + discarded.notEmitted().size()
                  + discarded.emittedAfterBarrier().size())
          .as("seed %d: each once", seed)
          .isEqualTo(accounted.size());
    }
  }
}
