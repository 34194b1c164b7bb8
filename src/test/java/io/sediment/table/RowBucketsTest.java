package io.sediment.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.schema.Schema;
import io.sediment.schema.TableSchema;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.junit.jupiter.api.Test;

/** The SQL sink routes by {@link RowBuckets}: a bucket has one writer, and buckets spread. */
class RowBucketsTest {

  /**
   * {@code (k BIGINT, p STRING)}, keyed by both, partitioned by {@code p}, in {@code n} buckets.
   */
  private static RowBuckets keyedByKAndP(int n) {
    return new RowBuckets(
        TableSchema.create(
            Schema.newBuilder()
                .column("k", DataTypes.BIGINT().notNull())
                .column("p", DataTypes.STRING().notNull())
                .primaryKey("k", "p")
                .partitionKeys("p")
                .option("bucket", String.valueOf(n))
                .build(),
            0));
  }

  @Test
  void everyBucketOfAPartitionGoesToOneChannelAndTheBucketsSpread() {
    RowBuckets buckets = keyedByKAndP(4);
    Random random = new Random(7);
    for (int channels = 1; channels <= 6; channels++) {
      Map<String, Integer> channelOfBucket = new HashMap<>();
      Map<String, Set<Integer>> channelsOfPartition = new HashMap<>();
      for (int i = 0; i < 2000; i++) {
        String p = "p" + random.nextInt(5);
        GenericRowData row = GenericRowData.of(random.nextLong(), StringData.fromString(p));
        int bucket = buckets.bucket(row);
        int channel = RowBuckets.channel(buckets.routingKey(row), channels);
        assertThat(channel).isBetween(0, channels - 1);
        Integer before = channelOfBucket.putIfAbsent(p + "/" + bucket, channel);
        assertThat(before == null || before == channel)
            .as("bucket %s/%s has one channel", p, bucket)
            .isTrue();
        channelsOfPartition.computeIfAbsent(p, x -> new HashSet<>()).add(channel);
      }
      for (Set<Integer> used : channelsOfPartition.values()) {
        assertThat(used).as("a partition's 4 buckets spread").hasSize(Math.min(4, channels));
      }
    }
  }

  /**
   * What a writer subtask keeps of a per-bucket state: over the subtasks of any parallelism each
   * bucket once, at the subtask its rows are routed to, and nothing lost.
   */
  @Test
  void eachBucketsStateIsKeptByTheSubtaskItsRowsGoTo() {
    RowBuckets buckets = keyedByKAndP(5);
    Random random = new Random(11);
    Map<BinaryRowData, Map<Integer, Long>> all = new HashMap<>();
    Map<String, Long> keyOf = new HashMap<>();
    for (int i = 0; i < 500; i++) {
      GenericRowData row =
          GenericRowData.of(random.nextLong(), StringData.fromString("p" + random.nextInt(9)));
      BinaryRowData partition = buckets.partition(row).copy();
      all.computeIfAbsent(partition, x -> new HashMap<>()).put(buckets.bucket(row), (long) i);
      keyOf.put(partition + "/" + buckets.bucket(row), buckets.routingKey(row));
    }
    for (int channels = 1; channels <= 7; channels++) {
      Map<String, Integer> keptBy = new HashMap<>();
      for (int subtask = 0; subtask < channels; subtask++) {
        int s = subtask;
        RowBuckets.routedTo(all, subtask, channels)
            .forEach(
                (p, byBucket) ->
                    byBucket.forEach(
                        (b, v) -> {
                          assertThat(v).isEqualTo(all.get(p).get(b));
                          assertThat(keptBy.put(p + "/" + b, s)).as("kept once").isNull();
                        }));
      }
      int c = channels;
      assertThat(keptBy).hasSize(keyOf.size());
      keyOf.forEach(
          (bucket, key) ->
              assertThat(keptBy.get(bucket))
                  .as("%s of %s channels", bucket, c)
                  .isEqualTo(RowBuckets.channel(key, c)));
    }
  }
}
