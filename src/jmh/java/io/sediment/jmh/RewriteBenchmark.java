package io.sediment.jmh;

import io.sediment.bench.Workload;
import io.sediment.format.DataFileReader;
import io.sediment.format.DataFileWriter;
import io.sediment.format.FileFormatOptions;
import io.sediment.format.RowGroupCopier;
import io.sediment.format.WrittenFile;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The hot path of append compaction: one group of ten 50,000-row W1 files rewritten into one file,
 * by copying row groups and by decoding and encoding rows.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 5)
@Fork(1)
public class RewriteBenchmark {

  static final int FILES = 10;
  static final int ROWS = 50_000;

  java.nio.file.Path dir;
  RowType type;
  List<RowGroupCopier.Input> inputs;
  FileFormatOptions options = FileFormatOptions.defaults();

  @Setup(Level.Trial)
  public void writeInputs() throws Exception {
    dir = Files.createTempDirectory("sediment-jmh");
    type =
        Workload.w1Schema().build().columns().stream()
            .map(c -> new RowType.RowField(c.name(), c.type()))
            .collect(
                java.util.stream.Collectors.collectingAndThen(
                    java.util.stream.Collectors.toList(), RowType::new));
    inputs = new ArrayList<>();
    GenericRowData row = new GenericRowData(6);
    byte[] note = new byte[32];
    for (int f = 0; f < FILES; f++) {
      Path p = new Path(dir.resolve("in-" + f + ".parquet").toUri());
      DataFileWriter w = DataFileWriter.create(p, type, options);
      for (long i = (long) f * ROWS; i < (long) (f + 1) * ROWS; i++) {
        Workload.fill(row, i, i, note);
        w.write(row);
      }
      WrittenFile written = w.finish();
      inputs.add(
          new RowGroupCopier.Input(p, written.fileSize(), written.rowCount(), written.stats()));
    }
  }

  @TearDown(Level.Trial)
  public void deleteInputs() throws Exception {
    io.sediment.bench.BenchRunner.deleteRecursively(dir);
  }

  private Path output() {
    return new Path(dir.resolve("out-" + UUID.randomUUID() + ".parquet").toUri());
  }

  @Benchmark
  public long copyRowGroups() throws Exception {
    Path out = output();
    WrittenFile f = RowGroupCopier.copy(inputs, out, type, options, () -> false);
    out.getFileSystem().delete(out, false);
    return f.rowCount();
  }

  @Benchmark
  public long decodeAndEncodeRows() throws Exception {
    Path out = output();
    DataFileWriter w = DataFileWriter.create(out, type, options);
    for (RowGroupCopier.Input in : inputs) {
      try (DataFileReader r = DataFileReader.open(in.path(), type, null, in.fileSize())) {
        RowData row;
        while ((row = r.next()) != null) {
          w.write(row);
        }
      }
    }
    long rows = w.finish().rowCount();
    out.getFileSystem().delete(out, false);
    return rows;
  }
}
