package io.sediment.jmh;

import io.sediment.bench.Workload;
import io.sediment.mergetree.KeyValueLayout;
import io.sediment.mergetree.MergeFunctions;
import io.sediment.mergetree.RowIterator;
import io.sediment.mergetree.SortMergeReader;
import io.sediment.schema.TableSchema;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The k-way merge of primary-key compaction ({@link SortMergeReader} with the deduplicate engine),
 * on in-memory sorted runs shaped like one W2 bucket: {@code runs} runs (commits) whose ids follow
 * WORKLOAD.md's W2 rule, scaled down to {@code rowsPerRun} rows per run. No IO: the merge, the
 * comparators and the merge function alone.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 5)
@Fork(1)
public class SortMergeBenchmark {

  @Param({"5"})
  int runs;

  @Param({"200000"})
  int rowsPerRun;

  KeyValueLayout layout;
  TableSchema schema;
  List<RowData[]> data;

  @Setup(Level.Trial)
  public void createRuns() {
    schema =
        TableSchema.create(Workload.w1Schema().primaryKey("id").option("bucket", "2").build(), 0L);
    layout = new KeyValueLayout(schema);
    int keySpace = rowsPerRun * 5 / 2;
    if (keySpace % 3 == 0) {
      keySpace++;
    }
    data = new ArrayList<>();
    byte[] note = new byte[32];
    long seq = 0;
    int arity = layout.fileType().getFieldCount();
    for (int c = 0; c < runs; c++) {
      RowData[] run = new RowData[rowsPerRun];
      GenericRowData values = new GenericRowData(6);
      for (int j = 0; j < rowsPerRun; j++) {
        Workload.fill(values, Workload.w2Id(c, j, keySpace), (long) c * rowsPerRun + j, note);
        GenericRowData kv = new GenericRowData(arity);
        for (int f = 0; f < 6; f++) {
          kv.setField(f, values.getField(f));
        }
        kv.setField(layout.sequenceIndex(), seq++);
        kv.setField(layout.kindIndex(), (byte) 0);
        run[j] = kv;
      }
      Arrays.sort(run, layout.keyComparator());
      data.add(run);
    }
  }

  @Benchmark
  public long mergeDeduplicate() throws Exception {
    List<RowIterator> iterators = new ArrayList<>();
    for (RowData[] run : data) {
      iterators.add(RowIterator.of(Arrays.asList(run)));
    }
    long sum = 0;
    try (SortMergeReader reader =
        new SortMergeReader(iterators, layout, MergeFunctions.create(schema, layout), true)) {
      RowData row;
      while ((row = reader.next()) != null) {
        sum += row.getLong(0);
      }
    }
    return sum;
  }
}
