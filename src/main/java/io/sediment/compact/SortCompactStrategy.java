package io.sediment.compact;

import io.sediment.manifest.DataFileMeta;
import io.sediment.manifest.EvolvingFileReader;
import io.sediment.manifest.FileStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * Plans a sort compaction of append buckets: every file of a bucket is rewritten, split into key
 * ranges so several tasks sort and write at once, as Flink's and Paimon's sort compaction split by
 * ranges from a sample. A bucket of {@code B} bytes gets {@code min(ceil(B / target-file-size),
 * maxRanges)} ranges, their bounds the quantiles of a uniform sample of the bucket's sort keys
 * (read from the key columns only, at most {@value #SAMPLE_FILES} files spread over the bucket);
 * equal quantiles merge, so heavy keys make fewer ranges, never an empty one by construction.
 */
final class SortCompactStrategy implements CompactPlanner.BucketStrategy {

  /** Sampled keys per range: the bounds' error is about 1/this of a range's rows. */
  static final int SAMPLES_PER_RANGE = 1000;

  /** Files a sample reads at most (spread evenly over the bucket's files). */
  static final int SAMPLE_FILES = 64;

  private final FileStore store;
  private final SortOrder order;
  private final int maxRanges;

  SortCompactStrategy(FileStore store, SortOrder order, int maxRanges) {
    if (maxRanges < 1) {
      throw new IllegalArgumentException("Sort ranges must be at least 1, got " + maxRanges);
    }
    this.store = store;
    this.order = order;
    this.maxRanges = maxRanges;
  }

  @Override
  public List<CompactTask> plan(CompactPlanner.Bucket bucket) {
    List<DataFileMeta> files = bucket.files();
    if (files.isEmpty()) {
      return List.of();
    }
    long bytes = 0;
    for (DataFileMeta f : files) {
      bytes += f.fileSize();
    }
    long target = Math.max(1, store.options().targetFileSize());
    int wanted = (int) Math.max(1, Math.min(maxRanges, (bytes + target - 1) / target));
    List<byte[]> bounds = wanted == 1 ? List.of() : bounds(bucket, wanted);
    int count = bounds.size() + 1;
    List<CompactTask> tasks = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      SortRange range =
          new SortRange(
              order,
              store.schema().id(),
              i,
              count,
              i == 0 ? null : bounds.get(i - 1),
              i == count - 1 ? null : bounds.get(i));
      tasks.add(
          new CompactTask(
              bucket.table(),
              bucket.partition(),
              bucket.partitionPath(),
              bucket.bucket(),
              bucket.totalBuckets(),
              files,
              0,
              CompactTask.Kind.SORT_REWRITE,
              false,
              OptionalLong.empty(),
              range));
    }
    return tasks;
  }

  /** Up to {@code ranges - 1} strictly increasing bounds: quantiles of a sample of the keys. */
  private List<byte[]> bounds(CompactPlanner.Bucket bucket, int ranges) {
    List<byte[]> sample = sample(bucket, ranges * SAMPLES_PER_RANGE);
    sample.sort(SortKeys::compare);
    List<byte[]> bounds = new ArrayList<>();
    for (int i = 1; i < ranges && !sample.isEmpty(); i++) {
      byte[] b = sample.get((int) ((long) i * sample.size() / ranges));
      // a bound equal to the previous (or to the smallest key: range 0 would be empty) is dropped
      byte[] previous = bounds.isEmpty() ? sample.get(0) : bounds.get(bounds.size() - 1);
      if (SortKeys.compare(b, previous) > 0) {
        bounds.add(b);
      }
    }
    return bounds;
  }

  /** A uniform sample (reservoir) of {@code size} keys of the rows of evenly spread files. */
  private List<byte[]> sample(CompactPlanner.Bucket bucket, int size) {
    RowType rowType = store.rowType();
    int[] projection = store.schema().indexes(order.columns());
    SortKeys keys = SortKeys.of(order, store.schema().project(order.columns()));
    List<DataFileMeta> files = bucket.files();
    int step = Math.max(1, (files.size() + SAMPLE_FILES - 1) / SAMPLE_FILES);
    // seeded by the bucket: the same files plan the same ranges
    SplittableRandom random =
        new SplittableRandom(31L * bucket.partition().hashCode() + bucket.bucket());
    List<byte[]> sample = new ArrayList<>(size);
    long seen = 0;
    for (int f = 0; f < files.size(); f += step) {
      DataFileMeta file = files.get(f);
      try (EvolvingFileReader reader =
          EvolvingFileReader.open(
              store, bucket.partition(), bucket.bucket(), file, rowType, projection)) {
        for (long r = 0; r < file.rowCount(); r++, seen++) {
          int slot = seen < size ? (int) seen : (int) random.nextLong(seen + 1);
          if (slot >= size) {
            if (!reader.skip()) {
              break;
            }
            continue;
          }
          RowData row = reader.next();
          if (row == null) {
            break;
          }
          byte[] key = keys.key(row);
          if (slot == sample.size()) {
            sample.add(key);
          } else {
            sample.set(slot, key);
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(
            "Cannot sample the sort keys of " + file.fileName() + " of " + bucket.table(), e);
      }
    }
    return sample;
  }
}
