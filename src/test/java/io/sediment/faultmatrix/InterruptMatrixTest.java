package io.sediment.faultmatrix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sediment.compact.CompactBuilder;
import io.sediment.compact.CompactTask;
import io.sediment.testutil.FaultyFileSystem;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Interrupting the thread blocked in {@code CompactBuilder.execute()} while one task is running and
 * another finished: once every task has stopped, nothing is committed and no output is left.
 */
@ExtendWith(NamedFailures.class)
class InterruptMatrixTest {

  @TempDir Path dir;

  @AfterEach
  void reset() {
    FaultyFileSystem.reset();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(TableKind.class)
  void interruptedExecuteLeavesNothing(TableKind kind) throws Exception {
    MatrixTable t = MatrixTable.withBatches(kind, dir, 3);
    CompactBuilder builder =
        Compactions.builder(t.table(), kind.fullCompaction())
            .withOptions(Map.of("compaction.parallelism", "2"));
    List<CompactTask> tasks = builder.plan();
    assertThat(tasks).hasSizeGreaterThanOrEqualTo(2);
    String blocked = tasks.get(0).inputs().get(0).fileName();
    CountDownLatch reached = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    FaultyFileSystem.onOpen(
        p -> {
          if (p.endsWith(blocked)) {
            reached.countDown();
            try {
              release.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new InterruptedIOException("interrupted opening " + p);
            }
          }
        });
    TableState before = TableState.of(t);
    AtomicReference<Throwable> error = new AtomicReference<>();
    Thread caller =
        new Thread(
            () -> {
              try {
                builder.execute();
              } catch (Throwable e) {
                error.set(e);
              }
            },
            "matrix-compact-caller");
    caller.start();
    assertThat(reached.await(30, TimeUnit.SECONDS)).as("task 0 is running").isTrue();
    // Task 1 has written its output completely (a Parquet file ends with its magic).
    Path otherBucket = t.tableDir().resolve(tasks.get(1).partitionPath()).resolve("bucket-0");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> hasCompleteNewParquetFile(otherBucket, before));

    caller.interrupt();
    // Running tasks are told to stop, not interrupted: task 0 stops only once its open returns,
    // and execute() must not return before it (no task may still write when it does).
    caller.join(TimeUnit.SECONDS.toMillis(1));
    assertThat(caller.isAlive()).as("execute() waits for the running task").isTrue();
    release.countDown(); // task 0 goes on now; stopped or finished, its output is deleted
    caller.join();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                Thread.getAllStackTraces().keySet().stream()
                    .noneMatch(
                        th -> th.isAlive() && th.getName().startsWith("sediment-compact-worker")));

    assertThat(error.get()).as("execute() reports the interruption").isNotNull();
    Invariants.assertUnchanged(before, TableState.of(t), "interrupted compaction");
    Invariants.check(t);
  }

  private static boolean hasCompleteNewParquetFile(Path bucket, TableState before)
      throws IOException {
    try (Stream<Path> files = Files.list(bucket)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        boolean isNew =
            before.files().stream().noneMatch(f -> f.endsWith(p.getFileName().toString()));
        if (isNew && Files.size(p) > 8) {
          byte[] bytes = Files.readAllBytes(p);
          String tail = new String(bytes, bytes.length - 4, 4, StandardCharsets.US_ASCII);
          if (tail.equals("PAR1")) {
            return true;
          }
        }
      }
    }
    return false;
  }
}
