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
import org.junit.jupiter.api.Test;

/** The SQL sink routes by {@link RowBuckets}: a bucket has one writer, and buckets spread. */
class RowBucketsTest {

  @Test
  void everyBucketOfAPartitionGoesToOneChannelAndTheBucketsSpread() {
    RowBuckets buckets =
        new RowBuckets(
            TableSchema.create(
                Schema.newBuilder()
                    .column("k", DataTypes.BIGINT().notNull())
                    .column("p", DataTypes.STRING().notNull())
                    .primaryKey("k", "p")
                    .partitionKeys("p")
                    .option("bucket", "4")
                    .build(),
                0));
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
}
