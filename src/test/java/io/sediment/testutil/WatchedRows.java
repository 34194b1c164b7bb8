package io.sediment.testutil;

import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * The rows of a streaming query, read on a thread of their own while the jobs that produce them are
 * watched. A streaming read never ends: a test waiting for a row that a failed writer or compaction
 * job will never produce would wait forever; here it fails at once with that job's error.
 */
public final class WatchedRows implements AutoCloseable {

  private static final Object END = new Object();

  private final CloseableIterator<Row> rows;
  private final BlockingQueue<Object> received = new LinkedBlockingQueue<>();
  private final List<JobClient> producers = new CopyOnWriteArrayList<>();
  private final Thread reader;

  public WatchedRows(CloseableIterator<Row> rows) {
    this.rows = rows;
    this.reader =
        new Thread(
            () -> {
              try {
                while (rows.hasNext()) {
                  received.add(rows.next());
                }
                received.add(END);
              } catch (Throwable t) {
                received.add(t);
              }
            },
            "watched-rows");
    reader.setDaemon(true);
    reader.start();
  }

  /** Fails the wait for the next row when {@code job} fails or is cancelled. */
  public WatchedRows watching(JobClient job) {
    producers.add(job);
    return this;
  }

  /** The next row; fails when the read or a watched job fails, or the read ends. */
  public Row next() throws InterruptedException {
    while (true) {
      Object next = received.poll(200, TimeUnit.MILLISECONDS);
      if (next instanceof Row row) {
        return row;
      }
      if (next instanceof Throwable t) {
        throw new AssertionError("The streaming read failed", t);
      }
      if (next == END) {
        throw new NoSuchElementException("The streaming read ended");
      }
      for (JobClient job : producers) {
        checkAlive(job);
      }
    }
  }

  private static void checkAlive(JobClient job) throws InterruptedException {
    JobStatus status;
    try {
      status = job.getJobStatus().get();
    } catch (ExecutionException e) {
      throw new AssertionError("Cannot get the status of job " + job.getJobID(), e.getCause());
    }
    if (status == JobStatus.FAILED || status == JobStatus.CANCELED) {
      Throwable cause = null;
      try {
        job.getJobExecutionResult().get();
      } catch (ExecutionException e) {
        cause = e.getCause();
      }
      throw new AssertionError(
          "Job " + job.getJobID() + " ended " + status + " while its rows were awaited", cause);
    }
  }

  @Override
  public void close() throws Exception {
    try {
      rows.close();
    } finally {
      reader.interrupt();
      reader.join(TimeUnit.SECONDS.toMillis(30));
    }
  }
}
