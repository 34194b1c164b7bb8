package io.sediment.faultmatrix;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.commit.CommitMessage;
import io.sediment.compact.CompactCommit;
import io.sediment.maintenance.ExpireSnapshots;
import io.sediment.maintenance.RemoveOrphanFiles;
import io.sediment.maintenance.Rollback;
import io.sediment.maintenance.Tags;
import io.sediment.manifest.CommitKind;
import io.sediment.manifest.Snapshot;
import io.sediment.table.Table;
import io.sediment.testutil.FaultyFileSystem;
import io.sediment.testutil.FaultyFileSystem.Fault;
import io.sediment.testutil.FaultyFileSystem.FaultKind;
import io.sediment.testutil.FaultyFileSystem.OpKind;
import io.sediment.testutil.FaultyFileSystem.Operation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults at every file operation of the commit, abort, expire and orphan-removal paths, on every
 * table kind: a crash (kill point) between every two operations, a failing delete at every delete,
 * a write failing midway and a full disk at every file written. Each step is run once to number its
 * operations ({@link FaultyFileSystem#recordOperations}); then, for every operation k, a copy of
 * the same table runs the step with the fault at k, the process "restarts" (the table is opened
 * afresh), the step is rerun where its contract says a rerun finishes it, and the invariants are
 * checked.
 */
class FileFaultMatrixTest {

  private static final String WRITER = "writer";
  private static final String COMPACTOR = "compactor";

  @TempDir Path dir;

  private final AtomicInteger cases = new AtomicInteger();

  @AfterEach
  void reset() {
    FaultyFileSystem.reset();
  }

  /** A step of the matrix: what the template table holds, the operation, its recovery. */
  enum Step {
    /** A writer's stream commit (on deletion-vector tables: APPEND, then its COMPACT). */
    WRITE_COMMIT {
      @Override
      Prepared prepare(MatrixTable t) {
        List<Model.Change> changes = t.batch(2);
        Table table = t.table();
        List<CommitMessage> m = t.prepare(table, changes, WRITER);
        return new Prepared(m, changes, List.of());
      }

      @Override
      void run(MatrixTable t, Prepared p) {
        t.table().newStreamWriteBuilder().withCommitUser(WRITER).newCommit().commit(1, p.messages);
      }

      @Override
      void recover(MatrixTable t, Prepared p) {
        // A restored writer commits its restored committable again; a landed one is skipped.
        run(t, p);
        assertThat(commitsOf(t, WRITER, CommitKind.APPEND))
            .as("the rerun stream commit landed exactly once")
            .hasSize(1);
        t.model.apply(p.changes);
      }
    },
    /** A compaction's commit, as the compaction committer makes it (identifier 1). */
    COMPACT_COMMIT {
      @Override
      Prepared prepare(MatrixTable t) {
        Compactions.Rewritten r = Compactions.planAndRewrite(t);
        assertThat(r.tasks()).isNotEmpty();
        return new Prepared(r.messages(), List.of(), r.outputs());
      }

      @Override
      void run(MatrixTable t, Prepared p) {
        new CompactCommit(t.table().store(), COMPACTOR).commit(p.messages, 1, true);
      }

      @Override
      void recover(MatrixTable t, Prepared p) {
        // A restored committer commits the window again; one whose outputs an abort deleted
        // is refused (and the refusal changes nothing), one that landed is skipped.
        List<Long> before = t.table().snapshotManager().listIds();
        try {
          run(t, p);
        } catch (RuntimeException e) {
          assertThat(t.table().snapshotManager().listIds())
              .as("a refused rerun (%s) commits nothing", e)
              .isEqualTo(before);
        }
        assertThat(commitsOf(t, COMPACTOR, CommitKind.COMPACT)).hasSizeLessThanOrEqualTo(1);
      }
    },
    /** Aborting a compaction's outputs. */
    ABORT {
      @Override
      Prepared prepare(MatrixTable t) {
        return COMPACT_COMMIT.prepare(t);
      }

      @Override
      void run(MatrixTable t, Prepared p) {
        List<IOException> errors =
            new CompactCommit(t.table().store(), COMPACTOR).abort(p.messages);
        if (!errors.isEmpty()) {
          UncheckedIOException e = new UncheckedIOException("abort failed", errors.get(0));
          errors.forEach(e::addSuppressed);
          throw e;
        }
      }

      @Override
      void recover(MatrixTable t, Prepared p) {
        run(t, p); // an abort is rerun until it succeeds
      }
    },
    /** Expiring all snapshots but the latest, after a compaction made files obsolete. */
    EXPIRE {
      @Override
      Prepared prepare(MatrixTable t) {
        try {
          Compactions.execute(t);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
        t.write(3);
        return new Prepared(List.of(), List.of(), List.of());
      }

      @Override
      void run(MatrixTable t, Prepared p) {
        new ExpireSnapshots(t.table()).retainMax(1).execute();
      }

      @Override
      void recover(MatrixTable t, Prepared p) {
        run(t, p); // a rerun finishes an interrupted expiry
      }
    },
    /** Removing orphan files: outputs of a compaction that never committed, older than now. */
    REMOVE_ORPHANS {
      @Override
      Prepared prepare(MatrixTable t) {
        Compactions.Rewritten r = Compactions.planAndRewrite(t);
        return new Prepared(List.of(), List.of(), List.of());
      }

      @Override
      void run(MatrixTable t, Prepared p) {
        new RemoveOrphanFiles(t.table()).olderThan(System.currentTimeMillis() + 60_000).execute();
      }

      @Override
      void recover(MatrixTable t, Prepared p) {
        run(t, p);
      }
    },
    /**
     * Rolling back to a tag made before a full compaction and a third batch: the rollback removes
     * the compaction's outputs and the batch's files and copies the compacted files back (with
     * their deletion vectors).
     */
    ROLLBACK {
      @Override
      Prepared prepare(MatrixTable t) {
        new Tags(t.table()).create(ROLLBACK_TAG, OptionalLong.empty());
        Model atTag = t.model.copy();
        try {
          Compactions.execute(t);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
        t.write(2);
        return new Prepared(List.of(), t.model.changesTo(atTag), List.of());
      }

      @Override
      void run(MatrixTable t, Prepared p) {
        new Rollback(t.table()).toTag(ROLLBACK_TAG);
      }

      @Override
      void recover(MatrixTable t, Prepared p) {
        // The operator runs it again: it finishes a rollback that did not land, and finds one
        // that landed done. What a failed run left is orphan removal's to take.
        run(t, p);
        assertThat(commitsOf(t, CommitKind.OVERWRITE)).as("one rollback landed").hasSize(1);
        // Orphan removal two days later (metadata is kept for a day), twice: a run that died
        // publishing its snapshot left a staged snapshot file naming its copies, which keeps them
        // until a run has deleted it.
        Clock later = Clock.offset(Clock.systemUTC(), Duration.ofDays(2));
        Table table = new FileSystemCatalog(t.warehouseUri()).withClock(later).getTable("db.t");
        new RemoveOrphanFiles(table).olderThan(later.millis()).execute();
        new RemoveOrphanFiles(table).olderThan(later.millis()).execute();
        t.model.apply(p.changes);
        // The rolled-back table needs neither the tag nor the snapshots before the rollback:
        // expiry must not take a file the rollback's snapshot references.
        new Tags(t.table()).delete(List.of(ROLLBACK_TAG));
        new ExpireSnapshots(t.table()).retainMax(1).execute();
      }
    };

    static final String ROLLBACK_TAG = "before";

    abstract Prepared prepare(MatrixTable template);

    abstract void run(MatrixTable t, Prepared p);

    /** After the restart: what finishes (or undoes) the step; updates the model. */
    abstract void recover(MatrixTable t, Prepared p);
  }

  /** A step's input, made once on the template: messages, model changes, files it writes. */
  record Prepared(List<CommitMessage> messages, List<Model.Change> changes, List<String> outputs) {}

  static List<Snapshot> commitsOf(MatrixTable t, String user, CommitKind kind) {
    return commitsOf(t, kind).stream().filter(s -> s.commitUser().equals(user)).toList();
  }

  static List<Snapshot> commitsOf(MatrixTable t, CommitKind kind) {
    Table table = t.table();
    List<Snapshot> out = new ArrayList<>();
    for (long id : table.snapshotManager().listIds()) {
      Snapshot s = table.snapshotManager().snapshot(id);
      if (s.commitKind() == kind) {
        out.add(s);
      }
    }
    return out;
  }

  @TestFactory
  Stream<DynamicNode> crashAtEveryOperation() {
    return matrix(op -> List.of(Fault.crash()));
  }

  @TestFactory
  Stream<DynamicNode> failingDeleteAtEveryDelete() {
    return matrix(op -> op.kind == OpKind.DELETE ? List.of(Fault.ioError()) : List.of());
  }

  /**
   * At every file written: a write failing midway (half its bytes written) or, alternating by
   * operation number to halve the run time, a full disk at its first byte. Both are the same
   * failure to the code under test; the matrix still covers every file once.
   */
  @TestFactory
  Stream<DynamicNode> failingWriteMidwayOrDiskFullAtEveryFileWritten() {
    return matrix(
        op ->
            op.kind == OpKind.CREATE && op.bytesWritten() > 0
                ? List.of(
                    op.index % 2 == 1
                        ? Fault.writeFailsAfter(op.bytesWritten() / 2)
                        : Fault.diskFullAfter(0))
                : List.of());
  }

  /**
   * At every file created, the thread creating it is interrupted right after (a job cancelled while
   * it writes): the step completes or fails, and either way leaves no partial file.
   */
  @TestFactory
  Stream<DynamicNode> interruptAfterEveryFileCreated() {
    return matrix(op -> op.kind == OpKind.CREATE ? List.of(Fault.interrupt()) : List.of());
  }

  private interface FaultsAt {
    List<Fault> at(Operation op);
  }

  private Stream<DynamicNode> matrix(FaultsAt faults) {
    List<DynamicNode> kinds = new ArrayList<>();
    for (TableKind kind : TableKind.values()) {
      List<DynamicNode> steps = new ArrayList<>();
      for (Step step : Step.values()) {
        steps.add(
            DynamicContainer.dynamicContainer(
                step.name(), Stream.of(0).flatMap(x -> stepCases(kind, step, faults))));
      }
      kinds.add(DynamicContainer.dynamicContainer(kind.name(), steps.stream()));
    }
    return kinds.stream();
  }

  /** Builds the template, numbers the step's operations, and yields one case per fault. */
  private Stream<DynamicNode> stepCases(TableKind kind, Step step, FaultsAt faults) {
    MatrixTable template =
        MatrixTable.withBatches(kind, newDir("template-" + kind + "-" + step), 2);
    Prepared prepared = step.prepare(template);
    MatrixTable counted = template.copyTo(newDir("count"));
    List<Operation> ops = FaultyFileSystem.recordOperations(counted.warehouse);
    step.run(counted, prepared);
    FaultyFileSystem.reset();
    List<Operation> seen = List.copyOf(ops);
    List<DynamicNode> out = new ArrayList<>();
    for (Operation op : seen) {
      for (Fault f : faults.at(op)) {
        out.add(
            DynamicTest.dynamicTest(
                f.kind() + " at " + op,
                () ->
                    Cases.named(
                        kind + " " + step + ": " + f.kind() + " at operation " + op,
                        () -> runCase(template, step, prepared, op.index, f))));
      }
    }
    return out.stream();
  }

  private void runCase(MatrixTable template, Step step, Prepared prepared, int k, Fault fault) {
    MatrixTable t = template.copyTo(newDir("case"));
    TableState before = TableState.of(t);
    FaultyFileSystem.injectAt(t.warehouse, k, fault);
    Throwable error = null;
    try {
      step.run(t, prepared);
    } catch (Throwable e) {
      error = e;
    }
    boolean fired = FaultyFileSystem.faultFired();
    FaultyFileSystem.reset();
    Thread.interrupted(); // an interrupt the step did not consume ends with its case
    assertThat(fired).as("the fault at operation %s fired", k).isTrue();
    if (fault.kind() == FaultKind.CRASH) {
      assertThat(error)
          .as("the crash reached the caller")
          .isInstanceOf(FaultyFileSystem.Crash.class);
    } else if (error != null) {
      assertThat(error)
          .as("an injected I/O error surfaces as an error, not swallowed into another kind")
          .isNotInstanceOf(FaultyFileSystem.Crash.class);
      boolean writeFault = fault.kind() != FaultKind.IO_ERROR;
      if (writeFault && TableState.of(t).snapshotIds().equals(before.snapshotIds())) {
        // A rejected call changed nothing but deleting what it wrote itself.
        Invariants.assertUnchanged(
            before.without(prepared.outputs()),
            TableState.of(t).without(prepared.outputs()),
            step.name().toLowerCase() + " (" + error + ")");
      }
    }
    // Readers are unaffected by the failed or interrupted step: they see the table before it,
    // or (a commit that landed before the fault) after it.
    Model landed = t.model.copy();
    landed.apply(prepared.changes());
    Invariants.rowsEqualOneOf(t, t.table(), t.model, landed);
    step.recover(t, prepared);
    Invariants.check(t);
    if (fault.kind() == FaultKind.WRITE_FAILS_MIDWAY
        || fault.kind() == FaultKind.DISK_FULL
        || fault.kind() == FaultKind.INTERRUPT) {
      Invariants.noUnreferencedMetadata(t);
    }
  }

  private Path newDir(String prefix) {
    try {
      return Files.createDirectories(dir.resolve(prefix + "-" + cases.incrementAndGet()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
