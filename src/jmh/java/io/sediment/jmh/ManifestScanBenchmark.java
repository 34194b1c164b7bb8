package io.sediment.jmh;

import io.sediment.bench.Workload;
import io.sediment.catalog.FileSystemCatalog;
import io.sediment.manifest.Snapshot;
import io.sediment.predicate.Predicate;
import io.sediment.predicate.PredicateBuilder;
import io.sediment.table.Table;
import java.nio.file.Files;
import java.util.concurrent.TimeUnit;
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

/** Manifest scans of the W3 table (200 partitions x 100 files): all files, and one partition. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 5)
@Fork(1)
public class ManifestScanBenchmark {

  java.nio.file.Path dir;
  Table table;
  Snapshot snapshot;
  Predicate onePartition;

  @Setup(Level.Trial)
  public void writeTable() throws Exception {
    dir = Files.createTempDirectory("sediment-jmh-w3");
    table = Workload.generateW3(new FileSystemCatalog(dir.toString()));
    snapshot = table.latestSnapshot().orElseThrow();
    onePartition =
        new PredicateBuilder(table.schema().partitionType()).equal("dt", Workload.w3Partition(123));
  }

  @TearDown(Level.Trial)
  public void delete() throws Exception {
    io.sediment.bench.BenchRunner.deleteRecursively(dir);
  }

  @Benchmark
  public int scanAll() {
    return table.store().newScan().plan(snapshot).size();
  }

  @Benchmark
  public int scanOnePartition() {
    return table.store().newScan().withPartitionFilter(onePartition).plan(snapshot).size();
  }
}
