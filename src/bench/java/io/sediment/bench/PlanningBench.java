package io.sediment.bench;

import io.sediment.catalog.FileSystemCatalog;
import io.sediment.compact.CompactTask;
import io.sediment.fs.ObjectStoreRequests;
import io.sediment.fs.ObjectStoreRequests.Counts;
import io.sediment.manifest.ManifestCache;
import io.sediment.table.Table;
import io.sediment.table.TableScan;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * W3 (and W3x50): generates the many-small-files table, then times the planning of a full
 * compaction of every file and of one partition (no rewriting), as WORKLOAD.md says.
 */
final class PlanningBench {

  private PlanningBench() {}

  static BenchResult run(
      FileSystemCatalog catalog,
      String mode,
      Scale scale,
      Map<String, String> tableOptions,
      boolean countRequests)
      throws Exception {
    Table table =
        Workload.generateW3(
            catalog, scale.w3Partitions(), scale.w3FilesPerPartition(), tableOptions);
    // Full compaction planning of all 20,000 files, from manifest files: the commits above left
    // theirs in the manifest cache as they wrote them, so it is emptied (Paimon's harness plans
    // with its catalog's cache off). An untimed plan first compiles the read path, which the
    // commits no longer run: the timed plan is one of a process that has planned before, as the
    // W1 and W2 runs time a warmed cluster.
    Map<String, String> full = Map.of("compaction.full", "true");
    table.newCompactBuilder().withOptions(full).plan();
    ManifestCache.clear();
    BenchRunner.resetPeakHeap(); // the peak of the planning, not of the generation
    long cpuStart = BenchRunner.processCpuNanos();
    Counts beforePlan = ObjectStoreRequests.now();
    long start = System.nanoTime();
    List<CompactTask> all = table.newCompactBuilder().withOptions(full).plan();
    double fullSeconds = (System.nanoTime() - start) / 1e9;
    Counts fullPlan = ObjectStoreRequests.now().since(beforePlan);
    double fullCpuSeconds = (BenchRunner.processCpuNanos() - cpuStart) / 1e9;
    // One partition.
    String filter =
        "{\"method\":\"equal\",\"field\":\"dt\",\"literals\":[\""
            + Workload.w3Partition(Math.min(123, scale.w3Partitions() - 1))
            + "\"]}";
    start = System.nanoTime();
    List<CompactTask> one =
        table.newCompactBuilder().withOptions(full).withPartitionFilter(filter).plan();
    double oneSeconds = (System.nanoTime() - start) / 1e9;
    TableScan.Plan scan = table.newReadBuilder().withFilter(filter).newScan().plan();

    int files = all.stream().mapToInt(t -> t.inputs().size()).sum();
    int oneFiles = one.stream().mapToInt(t -> t.inputs().size()).sum();
    boolean ok =
        files == scale.w3Partitions() * scale.w3FilesPerPartition()
            && oneFiles == scale.w3FilesPerPartition();
    long rows = (long) files * Workload.W3_ROWS_PER_FILE;
    Map<String, Object> details = new LinkedHashMap<>();
    if (countRequests) {
      details.putAll(fullPlan.toMap("planRequests"));
    }
    return new BenchResult(
        "W3",
        mode,
        fullSeconds,
        oneSeconds,
        fullCpuSeconds,
        rows,
        rows / fullSeconds,
        0,
        0,
        files,
        0,
        BenchRunner.peakHeap(),
        "zstd level 1",
        ok,
        String.format(
            Locale.ROOT,
            "full plan %d tasks/%d files in %.3fs; one-partition plan %d files in %.4fs,"
                + " manifests read %d, skipped %d",
            all.size(),
            files,
            fullSeconds,
            oneFiles,
            oneSeconds,
            scan.manifestsRead(),
            scan.manifestsSkipped()),
        details);
  }
}
