package io.sediment.faultmatrix;

import io.sediment.commit.CommitMessage;
import io.sediment.compact.CompactBuilder;
import io.sediment.compact.CompactCommit;
import io.sediment.compact.CompactRewriter;
import io.sediment.compact.CompactTask;
import io.sediment.compact.CompactTaskResult;
import io.sediment.compact.TableKind;
import io.sediment.io.OutputObserver;
import io.sediment.manifest.DeletionFile;
import io.sediment.table.Table;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A compaction taken apart, so that other work can run between its steps: plan and rewrite now,
 * commit or abort later, as a compactor racing with others does.
 */
final class Compactions {

  private Compactions() {}

  /** A planned and rewritten compaction that is not committed yet. */
  record Rewritten(List<CompactTask> tasks, List<CommitMessage> messages) {

    /** Names of the files the compaction wrote (data files and deletion-vector files). */
    List<String> outputs() {
      List<String> out = new ArrayList<>();
      for (CommitMessage m : messages) {
        m.compactAfter().forEach(f -> out.add(f.fileName()));
        m.newFiles().forEach(f -> out.add(f.fileName()));
        for (DeletionFile d : m.deletionFiles()) {
          out.add(d.dvFile());
        }
      }
      return out;
    }
  }

  static CompactBuilder builder(Table table, Map<String, String> options) {
    return table.newCompactBuilder().withOptions(options);
  }

  /** Plans a full compaction of the latest snapshot and runs every task; commits nothing. */
  static Rewritten planAndRewrite(MatrixTable t) {
    return planAndRewrite(t, t.kind.fullCompaction());
  }

  static Rewritten planAndRewrite(MatrixTable t, Map<String, String> options) {
    CompactBuilder b = builder(t.table(), options);
    List<CompactTask> tasks = b.plan();
    CompactRewriter rewriter =
        TableKind.of(b.effectiveStore()).rewriter(b.effectiveStore(), OutputObserver.NONE);
    List<CommitMessage> messages = new ArrayList<>();
    try {
      for (CompactTask task : tasks) {
        CompactTaskResult r = rewriter.rewrite(task, () -> false);
        messages.add(r.message());
      }
    } catch (Exception e) {
      throw new IllegalStateException("Rewriting " + tasks + " failed", e);
    }
    return new Rewritten(tasks, messages);
  }

  /**
   * Commits a rewritten compaction as {@code user}, identifier {@code id}, as the committer does.
   */
  static Long commit(MatrixTable t, Rewritten r, String user, long id) {
    return new CompactCommit(t.table().store(), user).commit(r.messages(), id, true);
  }

  /** Runs a whole full compaction in-process. */
  static void execute(MatrixTable t) throws Exception {
    builder(t.table(), t.kind.fullCompaction()).execute();
  }
}
