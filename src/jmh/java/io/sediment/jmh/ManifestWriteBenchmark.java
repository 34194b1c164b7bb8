package io.sediment.jmh;

import io.sediment.format.DataFileReader;
import io.sediment.format.DataFileWriter;
import io.sediment.format.FileFormatOptions;
import io.sediment.manifest.ManifestFile;
import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.fs.Path;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Writing and reading one manifest of {@code entries} entries shaped like a primary-key table's
 * (unique file names and keys, a few buckets and levels): as manifests are written ({@link
 * ManifestFile#FORMAT}: the columns that differ per entry plain), every column plain, or every
 * column with Parquet's dictionary encoding (as manifests were written before 2026-12-06).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ManifestWriteBenchmark {

  @Param({"10", "1000", "20000"})
  int entries;

  @Param({"written", "plain", "dictionary"})
  String encoding;

  java.nio.file.Path dir;
  List<GenericRowData> rows;
  FileFormatOptions options;
  Path written;
  long writtenSize;
  int next;

  @Setup(Level.Trial)
  public void makeEntries() throws Exception {
    dir = Files.createTempDirectory("sediment-jmh-manifest");
    options =
        switch (encoding) {
          case "plain" -> FileFormatOptions.defaults().withDictionary(false);
          case "dictionary" -> FileFormatOptions.defaults();
          default -> ManifestFile.FORMAT;
        };
    Random random = new Random(42);
    rows = new ArrayList<>(entries);
    for (int i = 0; i < entries; i++) {
      rows.add(
          GenericRowData.of(
              0,
              new byte[8],
              i % 4,
              4,
              StringData.fromString("data-" + UUID.randomUUID() + "-0.parquet"),
              1_000_000L + random.nextInt(100_000),
              50_000L,
              bytes(random, 16),
              bytes(random, 16),
              bytes(random, 60),
              bytes(random, 60),
              new byte[20],
              (long) i,
              i + 100L,
              0L,
              i % 3,
              1_765_000_000_000L + i,
              0,
              0L));
    }
    written = write();
    writtenSize = new File(written.toUri()).length();
  }

  private static byte[] bytes(Random random, int length) {
    byte[] b = new byte[length];
    random.nextBytes(b);
    return b;
  }

  @TearDown(Level.Trial)
  public void delete() throws Exception {
    io.sediment.bench.BenchRunner.deleteRecursively(dir);
  }

  @Benchmark
  public long writeManifest() throws Exception {
    Path path = write();
    new File(path.toUri()).delete();
    return path.getName().length();
  }

  private Path write() throws Exception {
    Path path = new Path(dir.resolve("manifest-" + next++).toUri());
    try (DataFileWriter writer = DataFileWriter.create(path, ManifestFile.ENTRY_TYPE, options)) {
      for (GenericRowData row : rows) {
        writer.write(row);
      }
      writer.finish();
    }
    return path;
  }

  @Benchmark
  public long readManifest() throws Exception {
    long sum = 0;
    try (DataFileReader reader =
        DataFileReader.open(written, ManifestFile.ENTRY_TYPE, null, writtenSize)) {
      RowData row;
      while ((row = reader.next()) != null) {
        sum += row.getString(4).toBytes().length + row.getLong(5);
      }
    }
    return sum;
  }
}
