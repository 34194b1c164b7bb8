package io.sediment.compact;

import io.sediment.commit.CommitMessage;
import io.sediment.commit.FileStoreCommit;
import io.sediment.io.OutputObserver;
import io.sediment.manifest.FileStore;
import io.sediment.predicate.Predicate;
import io.sediment.retention.AfterCommitMaintenance;
import io.sediment.schema.CompactionOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compacts a table in-process: {@link #plan()} shows the tasks, {@link #execute()} runs them on a
 * bounded pool and makes one COMPACT commit. The same planner, rewriter and commit run inside the
 * Flink compaction topology.
 *
 * <p>The setters fill a {@link CompactSpec}, the request every entry point runs; each validates its
 * input when called, so a bad filter, commit user or option fails here rather than at execute. Not
 * thread-safe; build one per compaction.
 */
public final class CompactBuilder {

  private static final Logger LOG = LoggerFactory.getLogger(CompactBuilder.class);

  /** Commit user of compactions that were given none. */
  public static final String DEFAULT_COMMIT_USER = CompactSpec.DEFAULT_COMMIT_USER;

  private final FileStore store;
  private final String tableName;
  private final CompactSpec.Builder spec;

  /** Compacts the table {@code tableName} ({@code db.table}) stored in {@code store}. */
  public CompactBuilder(FileStore store, String tableName) {
    this.store = store;
    this.tableName = tableName;
    this.spec = CompactSpec.forTable(tableName, store);
  }

  /**
   * Compacts only partitions matching {@code filter}, a predicate on the table's row type that
   * references partition columns only. Repeated calls combine with AND.
   */
  public CompactBuilder withPartitionFilter(Predicate filter) {
    spec.withPartitionFilter(filter);
    return this;
  }

  /**
   * The same, from the JSON filter form, e.g. {@code
   * {"method":"equal","field":"p","literals":["a"]}}.
   */
  public CompactBuilder withPartitionFilter(String jsonFilter) {
    spec.withPartitionFilter(jsonFilter);
    return this;
  }

  /**
   * {@code full} (the default of this batch compaction) or {@code minor}: Paimon's {@code
   * compact_strategy}.
   */
  public CompactBuilder withStrategy(CompactStrategy strategy) {
    spec.withStrategy(strategy);
    return this;
  }

  /** The same by name, {@code full} or {@code minor}; other names fail naming the allowed ones. */
  public CompactBuilder withStrategy(String strategy) {
    spec.withStrategy(strategy);
    return this;
  }

  /**
   * A sort compaction: every file of the selected partitions rewritten with the rows in {@code
   * order} ({@code order}, {@code zorder} or {@code hilbert} by columns), split by key range over
   * the parallel rewrites. Append tables without fixed buckets only; checked now.
   */
  public CompactBuilder withSortOrder(SortOrder order) {
    spec.withSortOrder(order);
    return this;
  }

  /** The same from Paimon's {@code order_strategy} and {@code order_by} (comma-separated). */
  public CompactBuilder withSortOrder(String orderStrategy, String orderBy) {
    spec.withSortOrder(orderStrategy, orderBy);
    return this;
  }

  /** Compacts only partitions whose newest file is older than {@code idleTime}. */
  public CompactBuilder withPartitionIdleTime(Duration idleTime) {
    spec.withPartitionIdleTime(idleTime);
    return this;
  }

  /** Names the compaction in snapshots as {@code <user>-compact-<suffix>}; validated now. */
  public CompactBuilder withCommitUser(String user) {
    spec.withCommitUser(user);
    return this;
  }

  /**
   * Dynamic options for this compaction only, e.g. {@code target-file-size}, {@code
   * compaction.min.file-num}, {@code compaction.full}, {@code compaction.parallelism}. Validated
   * now like table options.
   */
  public CompactBuilder withOptions(Map<String, String> options) {
    spec.withOptions(options);
    return this;
  }

  /** The request as given so far. */
  public CompactSpec spec() {
    return spec.build();
  }

  /** The dynamic options given with {@link #withOptions}. */
  public Map<String, String> dynamicOptions() {
    return spec().options();
  }

  /** The table's store with the dynamic options applied. */
  public FileStore effectiveStore() {
    return spec().applyOptions(store);
  }

  /** The partition filter on the partition row type (AND of all given), or null. */
  public Predicate partitionFilter() {
    return spec().partitionFilter();
  }

  public String commitUser() {
    return spec().commitUser();
  }

  /** The tasks a compaction of the latest snapshot would run, without running them. */
  public List<CompactTask> plan() {
    return spec().plan(store, tableName);
  }

  /**
   * Plans, runs every task on a pool of {@code compaction.parallelism} threads, and makes one
   * COMPACT commit. Blocks the calling thread until done; see {@link #executeAsync()}.
   *
   * <p>When a task fails, the other tasks are stopped, the outputs of all tasks are deleted once
   * every task has ended, nothing is committed, and the task's error is thrown (deletion errors are
   * attached as suppressed). An interrupt of the calling thread while tasks run does the same and
   * throws {@link InterruptedException}. When the commit conflicts with a concurrent commit, the
   * outputs are deleted and the {@link io.sediment.commit.CommitConflictException} names the files.
   */
  public CompactResult execute() throws Exception {
    return execute(spec());
  }

  /**
   * Plans and runs the compaction: one commit, or with {@code partial-progress.enabled} up to
   * {@code partial-progress.max-commits}, each of at most the per-commit budget ({@link
   * CompactBudget}), planned anew from the snapshot the previous one made. A failure of a later
   * commit keeps the earlier ones and throws.
   */
  private CompactResult execute(CompactSpec request) throws Exception {
    long start = System.currentTimeMillis();
    List<CompactTask> tasks = request.plan(store, tableName);
    if (tasks.isEmpty()) {
      LOG.info("Nothing to compact in {}", tableName);
      return CompactResult.nothing(System.currentTimeMillis() - start);
    }
    FileStore effective = request.applyOptions(store);
    long budget = CompactBudget.perCommit(effective.options(), tasks);
    int commits = CompactBudget.commits(effective.options());
    long planned = CompactBudget.replacedBytes(tasks);
    long rewritten = 0;
    // a sort in rounds leaves alone the buckets it sorted: the files it did not start with
    Set<String> filesAtStart =
        commits > 1 && request.sortOrder().isPresent()
            ? CompactSpec.liveFileNames(store)
            : Set.of();
    List<CompactResult> done = new ArrayList<>();
    for (int round = 0; round < commits && rewritten < planned; round++) {
      if (round > 0) {
        // planned anew from this run's last commit; ends once the first plan's bytes are done
        // (a new plan could otherwise pick up what the rounds wrote)
        tasks =
            request.plan(
                store,
                tableName,
                ExecutionMode.BATCH,
                request.laterRoundExclusions(store, filesAtStart));
        if (tasks.isEmpty()) {
          break;
        }
      }
      // without compaction.max-rewrite-bytes the last commit takes what is left
      boolean last =
          round == commits - 1 && CompactBudget.maxRewriteBytes(effective.options()).isEmpty();
      CompactResult r =
          executeRound(
              request, effective, CompactBudget.cap(tasks, last ? Long.MAX_VALUE : budget));
      done.add(r);
      rewritten += r.bytesBefore();
    }
    CompactResult result = CompactResult.sum(done, System.currentTimeMillis() - start);
    if (done.size() > 1) {
      LOG.info("Compacted {} in {} commits: {}", tableName, done.size(), result.toJson());
    }
    return result;
  }

  /** Runs {@code tasks} and commits them in one COMPACT snapshot. */
  private CompactResult executeRound(
      CompactSpec request, FileStore effective, List<CompactTask> tasks) throws Exception {
    long start = System.currentTimeMillis();
    int parallelism =
        Math.min(
            tasks.size(),
            request
                .parallelism()
                .orElse(effective.options().get(CompactionOptions.COMPACTION_PARALLELISM)));
    LOG.info(
        "Compacting {}: {} task(s), {} input file(s), parallelism {}",
        tableName,
        tasks.size(),
        tasks.stream().mapToInt(x -> x.replacedInputs().size()).sum(),
        parallelism);
    String commitUser = request.commitUser();
    List<CompactTaskResult> results = runAll(effective, commitUser, tasks, parallelism);
    List<CommitMessage> messages = new ArrayList<>();
    for (CompactTaskResult r : results) {
      messages.add(r.message());
    }
    CompactCommit commit = new CompactCommit(effective, compactCommitUser(commitUser));
    Long snapshotId =
        uninterruptibly(
            () -> {
              Long id = commit.commit(messages, FileStoreCommit.BATCH_IDENTIFIER, false);
              // Like a batch writer's commit: expire the partitions (when it made a snapshot) and
              // snapshots the options no longer keep; never throws.
              new AfterCommitMaintenance(effective, tableName)
                  .run(effective, id == null ? -1 : id, id != null, true);
              return id;
            });
    CompactResult result =
        CompactResult.of(results, snapshotId, System.currentTimeMillis() - start);
    LOG.info("Compacted {}: {}", tableName, result.toJson());
    return result;
  }

  /**
   * {@link #execute()} on a new thread; the future completes with its result or error. Cancelling
   * the future interrupts that thread: running tasks stop, every output is deleted and nothing is
   * committed (unless the commit had already begun, which then completes). The clean-up runs after
   * {@code cancel} returns.
   */
  public CompletableFuture<CompactResult> executeAsync() {
    CompactSpec request = spec(); // later setter calls do not change a running compaction
    CompletableFuture<CompactResult> future = new CompletableFuture<>();
    Thread thread =
        new Thread(
            () -> {
              try {
                future.complete(execute(request));
              } catch (Throwable e) {
                future.completeExceptionally(e);
              }
            },
            "sediment-compact-" + tableName);
    thread.setDaemon(true);
    future.whenComplete(
        (r, e) -> {
          if (future.isCancelled()) {
            thread.interrupt();
          }
        });
    thread.start();
    return future;
  }

  /** {@code <user>-compact-<suffix>}, the suffix unique per execution. */
  public static String compactCommitUser(String user) {
    return user + "-compact-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /**
   * Runs every task and returns their results. On a task failure or an interrupt of the calling
   * thread, tasks not yet started are skipped, running ones are told to stop (each deletes its own
   * partial output), and only after every task has ended are the outputs of the finished ones
   * deleted; then the error is thrown (an interrupt as {@link InterruptedException}, with the
   * thread's interrupt flag set again). No task is still writing when this method returns.
   */
  private List<CompactTaskResult> runAll(
      FileStore store, String commitUser, List<CompactTask> tasks, int parallelism)
      throws Exception {
    CompactRewriter rewriter = TableKind.of(store).rewriter(store, OutputObserver.NONE);
    AtomicBoolean cancelled = new AtomicBoolean();
    AtomicInteger threadIds = new AtomicInteger();
    ThreadFactory threads =
        r -> {
          Thread th = new Thread(r, "sediment-compact-worker-" + threadIds.incrementAndGet());
          th.setDaemon(true);
          return th;
        };
    ExecutorService pool = Executors.newFixedThreadPool(parallelism, threads);
    List<Future<CompactTaskResult>> futures = new ArrayList<>();
    Throwable failure = null;
    try {
      for (CompactTask task : tasks) {
        futures.add(
            pool.submit(
                () -> {
                  if (cancelled.get()) {
                    throw new CancellationException("Compaction task not started: " + task);
                  }
                  return rewriter.rewrite(task, cancelled::get);
                }));
      }
      for (Future<CompactTaskResult> f : futures) {
        try {
          f.get();
        } catch (ExecutionException e) {
          if (failure == null) {
            failure = e.getCause();
            cancelled.set(true);
          }
        }
      }
      // Future.get() returns a finished task's result without looking at the interrupt flag, so
      // an interrupt that arrived while the last tasks finished is only seen here.
      if (failure == null && Thread.interrupted()) {
        throw new InterruptedException("Interrupted while compaction tasks ran");
      }
    } catch (InterruptedException e) {
      failure = e;
      cancelled.set(true);
    } finally {
      pool.shutdown();
    }
    // Every task has ended once the pool has terminated: only then are outputs deleted.
    boolean interrupted = awaitTerminationUninterruptibly(pool);
    List<CompactTaskResult> results = new ArrayList<>();
    for (Future<CompactTaskResult> f : futures) {
      try {
        results.add(f.get());
      } catch (ExecutionException e) {
        if (failure != null
            && e.getCause() != failure
            && !(e.getCause() instanceof CancellationException)) {
          failure.addSuppressed(e.getCause());
        }
      }
    }
    if (failure == null) {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      return results;
    }
    List<CommitMessage> done = new ArrayList<>();
    for (CompactTaskResult r : results) {
      done.add(r.message());
    }
    new CompactCommit(store, commitUser).abortInto(done, failure);
    if (failure instanceof InterruptedException) {
      LOG.warn(
          "Compaction of {} interrupted; every task stopped, outputs deleted, nothing committed",
          tableName);
      Thread.currentThread().interrupt();
    } else {
      LOG.warn("Compaction of {} failed; outputs deleted, nothing committed", tableName, failure);
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    throwUnchecked(failure);
    throw new AssertionError("unreachable");
  }

  /**
   * Runs {@code step} on a thread of its own and waits for it, so that an interrupt of the calling
   * thread cannot break it halfway: file channels close when their thread is interrupted, which
   * would fail a commit's metadata writes and then its clean-up. An interrupt that arrives
   * meanwhile is set again on the calling thread afterwards.
   */
  private static <T> T uninterruptibly(Callable<T> step) throws Exception {
    FutureTask<T> task = new FutureTask<>(step);
    Thread thread = new Thread(task, "sediment-compact-commit");
    thread.setDaemon(true);
    thread.start();
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return task.get();
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          throwUnchecked(e.getCause());
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Waits for the pool's tasks to end; returns whether the thread was interrupted meanwhile. */
  private static boolean awaitTerminationUninterruptibly(ExecutorService pool) {
    boolean interrupted = false;
    while (true) {
      try {
        if (pool.awaitTermination(1, TimeUnit.MINUTES)) {
          return interrupted;
        }
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
  }

  private static void throwUnchecked(Throwable t) throws Exception {
    if (t instanceof Exception) {
      throw (Exception) t;
    }
    if (t instanceof Error) {
      throw (Error) t;
    }
    throw new CompletionException(t);
  }

  /** The names of the inputs of {@code tasks}; used to keep planned files out of new plans. */
  public static Set<String> inputNames(List<CompactTask> tasks) {
    Set<String> names = new HashSet<>();
    for (CompactTask t : tasks) {
      t.inputs().forEach(f -> names.add(f.fileName()));
    }
    return names;
  }
}
