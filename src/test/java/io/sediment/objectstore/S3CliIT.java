package io.sediment.objectstore;

import static org.assertj.core.api.Assertions.assertThat;

import io.sediment.testutil.ChildJvm;
import io.sediment.testutil.S3ProxyExtension;
import io.sediment.testutil.S3ProxyServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line on an {@code s3://} warehouse, as a user runs it: {@code bin/sediment} (the
 * launcher, on the packaged jar), its own process per command, the S3 endpoint and keys in the
 * {@code flink-conf/} it is given, the S3 file system from the build's {@code
 * target/flink-plugins/} (the launcher's default). {@code sql}, {@code inspect}, {@code compact},
 * {@code expire-snapshots} and {@code remove-orphan-files} open the warehouse (before the fix only
 * {@code bench} set up Flink's file systems, and the others said "Could not find a file system
 * implementation for scheme 's3'").
 */
class S3CliIT {

  @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension("lake");

  @TempDir Path dir;

  private record Result(int code, String out) {}

  private Result sediment(String... args) throws Exception {
    Path conf = dir.resolve("flink-conf");
    Files.createDirectories(conf);
    // the checkout's configuration (its JVM options for JDK 17) plus the S3 endpoint and keys
    StringBuilder yaml =
        new StringBuilder(Files.readString(Paths.get("flink-conf", "config.yaml"))).append('\n');
    Configuration c = S3ProxyServer.flinkConfiguration(S3.server().endpoint());
    c.toMap().forEach((k, v) -> yaml.append(k).append(": ").append(v).append('\n'));
    Files.writeString(conf.resolve("config.yaml"), yaml.toString());
    List<String> command = new ArrayList<>();
    command.add(Paths.get("bin", "sediment").toAbsolutePath().toString());
    command.addAll(List.of(args));
    ProcessBuilder pb =
        new ProcessBuilder(command).redirectErrorStream(true).directory(dir.toFile());
    pb.environment().put("SEDIMENT_FLINK_CONF", conf.toString());
    pb.environment().remove("FLINK_PLUGINS_DIR");
    pb.environment().put("SEDIMENT_LOG_DIR", dir.toString());
    pb.environment().put("SEDIMENT_JAVA_OPTS", ChildJvm.options());
    Path out = dir.resolve("out-" + System.nanoTime() + ".txt");
    Process p = pb.redirectOutput(out.toFile()).start();
    assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
    return new Result(p.exitValue(), Files.readString(out));
  }

  @Test
  void sqlAndInspectOpenAnS3Warehouse() throws Exception {
    String lock = "jdbc:sqlite:" + dir.resolve("locks.db");
    Result sql =
        sediment(
            "sql",
            "--warehouse",
            "s3://lake/cli",
            "-e",
            "CREATE DATABASE db; CREATE TABLE db.t (id INT) WITH ('lock.enabled' = 'true',"
                + " 'lock.jdbc.url' = '"
                + lock
                + "'); INSERT INTO db.t VALUES (1), (2); SELECT COUNT(*) AS n FROM db.t");
    assertThat(sql.code()).as(sql.out()).isZero();
    assertThat(sql.out()).contains("| 2 |").doesNotContain("Could not find a file system");
    Result inspect = sediment("inspect", "--warehouse", "s3://lake/cli", "--table", "db.t");
    assertThat(inspect.code()).as(inspect.out()).isZero();
    assertThat(inspect.out()).contains("total: 1 file, 2 rows");

    // the maintenance commands on the same warehouse: compact, expire, remove orphans
    Result more =
        sediment("sql", "--warehouse", "s3://lake/cli", "-e", "INSERT INTO db.t VALUES (3)");
    assertThat(more.code()).as(more.out()).isZero();
    Result compact = sediment("compact", "--warehouse", "s3://lake/cli", "--table", "db.t");
    assertThat(compact.code()).as(compact.out()).isZero();
    assertThat(compact.out())
        .contains("Compacted 1 task: 2 -> 1 file")
        .doesNotContain("Could not find a file system");
    Result expire =
        sediment(
            "expire-snapshots",
            "--warehouse",
            "s3://lake/cli",
            "--table",
            "db.t",
            "--retain-max",
            "1");
    assertThat(expire.code()).as(expire.out()).isZero();
    Result orphans =
        sediment(
            "remove-orphan-files", "--warehouse", "s3://lake/cli", "--table", "db.t", "--dry-run");
    assertThat(orphans.code()).as(orphans.out()).isZero();
    Result after = sediment("inspect", "--warehouse", "s3://lake/cli", "--table", "db.t");
    assertThat(after.out()).contains("total: 1 file, 3 rows");
  }
}
