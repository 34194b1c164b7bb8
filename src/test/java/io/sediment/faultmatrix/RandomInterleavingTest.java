package io.sediment.faultmatrix;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.commit.CommitConflictException;
import io.sediment.maintenance.ExpireSnapshots;
import io.sediment.maintenance.RemoveOrphanFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A seeded scheduler interleaving a writer, a compactor split into plan-and-rewrite and commit,
 * expiry and orphan removal; the invariants are checked after every step. Fixed seeds plus one new
 * seed per run; a failure message starts with the seed and the steps taken, so the run can be
 * repeated by adding the seed to {@link #SEEDS}.
 */
@ExtendWith(NamedFailures.class)
class RandomInterleavingTest {

  private static final long[] SEEDS = {1L, 42L, 1300961209009L};
  private static final long RUN_SEED = System.nanoTime();
  private static final int STEPS = 14;

  @TempDir Path dir;

  enum Action {
    WRITE,
    PLAN_AND_REWRITE,
    COMMIT_PENDING,
    COMPACT,
    EXPIRE,
    REMOVE_ORPHANS
  }

  static Stream<Arguments> runs() {
    List<Arguments> out = new ArrayList<>();
    for (TableKind k : TableKind.values()) {
      for (long s : SEEDS) {
        out.add(Arguments.of(k, s));
      }
      out.add(Arguments.of(k, RUN_SEED));
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0} seed {1}")
  @MethodSource("runs")
  void randomInterleaving(TableKind kind, long seed) throws Throwable {
    List<String> steps = new ArrayList<>();
    try {
      run(kind, seed, steps);
    } catch (Throwable e) {
      throw new AssertionError("[" + kind + " seed " + seed + ", steps " + steps + "] " + e, e);
    }
  }

  private void run(TableKind kind, long seed, List<String> steps) throws Exception {
    Random random = new Random(seed);
    MatrixTable t = MatrixTable.withBatches(kind, Files.createDirectories(dir.resolve("t")), 2);
    int batch = 2;
    Compactions.Rewritten pending = null;
    long identifier = 0;
    for (int i = 0; i < STEPS; i++) {
      Action a = Action.values()[random.nextInt(Action.values().length)];
      steps.add(a.name());
      switch (a) {
        case WRITE -> t.write(batch++);
        case PLAN_AND_REWRITE -> {
          if (pending == null) {
            pending = Compactions.planAndRewrite(t);
          }
        }
        case COMMIT_PENDING -> {
          if (pending != null) {
            TableState before = TableState.of(t);
            try {
              Compactions.commit(t, pending, "compactor", ++identifier);
            } catch (CommitConflictException e) {
              assertThat(e.conflictingFiles()).isNotEmpty();
              Invariants.assertUnchanged(
                  before.without(pending.outputs()), TableState.of(t), "conflicting commit");
            }
            pending = null;
          }
        }
        case COMPACT -> {
          try {
            Compactions.execute(t);
          } catch (CommitConflictException e) {
            // cannot happen without a concurrent commit; fail loudly if it does
            throw new AssertionError("a lone compaction conflicted", e);
          }
        }
        case EXPIRE -> new ExpireSnapshots(t.table()).retainMax(1 + random.nextInt(3)).execute();
        case REMOVE_ORPHANS -> new RemoveOrphanFiles(t.table()).execute();
      }
      Invariants.check(t, pending == null ? List.of() : pending.outputs());
    }
  }
}
