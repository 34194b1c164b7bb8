package io.sediment.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.cli.SedimentCli;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;

/**
 * The job jar for clusters (target/sediment-flink.jar) leaves Flink and the logging to the cluster
 * and carries Sediment, its own dependencies and the service files Flink finds it by; the CLI's
 * target/sediment.jar stays self-contained. Runs after {@code package}, as part of {@code mvn
 * verify}.
 */
class FlinkJobJarIT {

  private static final Path JOB_JAR = Path.of("target/sediment-flink.jar");
  private static final Path CLI_JAR = Path.of("target/sediment.jar");

  @Test
  void theJobJarHasNoFlinkAndNoLoggingClasses() throws IOException {
    List<String> entries = entries(JOB_JAR);
    assertThat(entries)
        .filteredOn(e -> e.startsWith("org/apache/flink/"))
        .as("Flink classes in %s", JOB_JAR)
        .isEmpty();
    assertThat(entries)
        .filteredOn(e -> e.startsWith("org/apache/logging/log4j/") || e.startsWith("org/slf4j/"))
        .as("logging classes the cluster provides")
        .isEmpty();
    assertThat(entries)
        .contains(
            "io/sediment/cli/SedimentCli.class",
            "io/sediment/flink/CompactRewriteOperator.class",
            "org/apache/parquet/hadoop/ParquetFileWriter.class",
            "org/roaringbitmap/RoaringBitmap.class",
            "com/fasterxml/jackson/databind/ObjectMapper.class",
            "picocli/CommandLine.class");
  }

  @Test
  void theJobJarRunsTheCliAndRegistersTheCatalogFactory() throws IOException {
    try (JarFile jar = new JarFile(JOB_JAR.toFile())) {
      assertThat(jar.getManifest().getMainAttributes().getValue("Main-Class"))
          .isEqualTo(SedimentCli.class.getName());
      ZipEntry factories =
          jar.getEntry("META-INF/services/org.apache.flink.table.factories.Factory");
      assertThat(factories).as("service file of Flink's table factories").isNotNull();
      String services =
          new String(jar.getInputStream(factories).readAllBytes(), StandardCharsets.UTF_8);
      assertThat(services).contains("io.sediment.flink.sql.SedimentCatalogFactory");
    }
  }

  @Test
  void theCliJarStaysSelfContained() throws IOException {
    assertThat(entries(CLI_JAR))
        .contains(
            "io/sediment/cli/SedimentCli.class",
            "org/apache/flink/runtime/minicluster/MiniCluster.class",
            "org/apache/logging/log4j/core/Logger.class");
  }

  /**
   * The benchmark ships apart: no product jar carries io.sediment.bench (nor the service file that
   * adds {@code bench} to the CLI); target/sediment-*-bench.jar carries both, and bin/sediment adds
   * it to the class path.
   */
  @Test
  void theBenchmarkIsInItsOwnJarOnly() throws IOException {
    for (Path product : List.of(JOB_JAR, CLI_JAR, mainJar())) {
      assertThat(entries(product))
          .as("benchmark entries in %s", product)
          .noneMatch(
              e ->
                  e.startsWith("io/sediment/bench/")
                      || e.endsWith("ExtraCommand") && e.startsWith("META-INF/"));
    }
    assertThat(entries(jarEndingWith("-bench.jar")))
        .contains(
            "io/sediment/bench/BenchCommand.class",
            "io/sediment/bench/BenchRunner.class",
            "META-INF/services/io.sediment.cli.ExtraCommand")
        .noneMatch(e -> e.startsWith("io/sediment/cli/"));
  }

  private static Path mainJar() throws IOException {
    try (Stream<Path> files = Files.list(Path.of("target"))) {
      return files
          .filter(f -> f.getFileName().toString().matches("sediment-[0-9][^-]*(-SNAPSHOT)?\\.jar"))
          .findFirst()
          .orElseThrow(() -> new AssertionError("no target/sediment-<version>.jar"));
    }
  }

  private static Path jarEndingWith(String suffix) throws IOException {
    try (Stream<Path> files = Files.list(Path.of("target"))) {
      return files
          .filter(f -> f.getFileName().toString().endsWith(suffix))
          .findFirst()
          .orElseThrow(() -> new AssertionError("no target/*" + suffix));
    }
  }

  private static List<String> entries(Path jar) throws IOException {
    try (JarFile f = new JarFile(jar.toFile())) {
      return f.stream().map(ZipEntry::getName).toList();
    }
  }
}
