package io.sediment.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sediment.testutil.ChildJvm;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The multi-process cluster of {@code bin/local-cluster}, driven as a user drives it: the scripts
 * start and stop the processes, {@code bin/flink} submits, the REST endpoint tells the state. Needs
 * {@code mvn package} (target/sediment-flink.jar, target/flink-classpath.txt).
 *
 * <p>Each cluster has a configuration directory of its own ({@code FLINK_CONF_DIR}): flink-conf/
 * with a free REST port and JobManager RPC port instead of 8081 and 6123, so that the test classes
 * of two forks can each run a cluster at the same time.
 */
final class LocalCluster {

  private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(5);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path home = Path.of("").toAbsolutePath();
  private final Path dir;
  private final Map<String, String> environment;
  private final Path confDir;
  private int restPort;
  private final HttpClient http = HttpClient.newHttpClient();
  private int commands;

  /** {@code dir} holds the cluster's logs, PID files, checkpoints and the commands' output. */
  LocalCluster(Path dir) {
    this(dir, Map.of());
  }

  /** With more environment variables for the scripts (e.g. SEDIMENT_CLUSTER_LIB). */
  LocalCluster(Path dir, Map<String, String> environment) {
    this.dir = dir.toAbsolutePath();
    this.environment = Map.copyOf(environment);
    this.confDir = this.dir.resolve("conf");
  }

  /**
   * Writes the cluster's configuration directory once: flink-conf/ as it is, but for {@code
   * rest.port} and {@code jobmanager.rpc.port}, which are free ports picked now.
   */
  private void writeConfiguration() throws IOException {
    if (restPort != 0) {
      return;
    }
    Path source = home.resolve("flink-conf");
    Files.createDirectories(confDir);
    try (Stream<Path> files = Files.list(source)) {
      for (Path f : files.toList()) {
        Files.copy(f, confDir.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
      }
    }
    int rest = freePort();
    int rpc = freePort();
    String config = Files.readString(confDir.resolve("config.yaml"), StandardCharsets.UTF_8);
    String replaced = config.replaceFirst("(?m)^rest\\.port:.*$", "rest.port: " + rest);
    assertThat(replaced).as("flink-conf/config.yaml sets rest.port").isNotEqualTo(config);
    String withOptions =
        replaced.replaceFirst("(?m)^(env\\.java\\.opts\\.all:.*)$", "$1 " + ChildJvm.options());
    assertThat(withOptions)
        .as("flink-conf/config.yaml sets env.java.opts.all")
        .isNotEqualTo(replaced);
    Files.writeString(
        confDir.resolve("config.yaml"),
        withOptions + "\njobmanager.rpc.port: " + rpc + "\n",
        StandardCharsets.UTF_8);
    restPort = rest;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  record Result(int code, String output) {}

  Path jobJar() {
    return home.resolve("target/sediment-flink.jar");
  }

  /** Starts a JobManager and {@code taskManagers} TaskManagers; waits until all registered. */
  void start(int taskManagers) throws Exception {
    Result r = script("local-cluster", "start", String.valueOf(taskManagers));
    assertThat(r.code()).as(r.output()).isZero();
    await("TaskManagers registered at the JobManager's REST endpoint")
        .atMost(Duration.ofMinutes(2))
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .until(() -> get("/overview").get("taskmanagers").asInt() == taskManagers);
  }

  /** {@code bin/local-cluster start-taskmanager}: one more TaskManager. */
  Result startTaskManager() throws Exception {
    return script("local-cluster", "start-taskmanager");
  }

  /** The PID file of process {@code name} (jobmanager, taskmanager-1, ...). */
  Path pidFile(String name) {
    return dir.resolve("pid").resolve(name + ".pid");
  }

  /** The log file of process {@code name}. */
  Path logFile(String name) {
    return dir.resolve("log").resolve(name + ".log");
  }

  /** Stops every process the cluster's PID files name. */
  void stop() throws Exception {
    Result r = script("local-cluster", "stop");
    assertThat(r.code()).as(r.output()).isZero();
  }

  List<Long> pids() throws IOException {
    Path pidDir = dir.resolve("pid");
    List<Long> out = new ArrayList<>();
    if (!Files.isDirectory(pidDir)) {
      return out;
    }
    try (Stream<Path> files = Files.list(pidDir)) {
      for (Path f : files.toList()) {
        out.add(Long.parseLong(Files.readString(f).trim()));
      }
    }
    return out;
  }

  /** {@code bin/flink ARGS}: its exit code and output (stdout and stderr). */
  Result flink(String... args) throws Exception {
    return script("flink", args);
  }

  /** {@code bin/sql-client ARGS}: its exit code and output (stdout and stderr). */
  Result sqlClient(String... args) throws Exception {
    return script("sql-client", args);
  }

  JsonNode get(String path) throws Exception {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create("http://localhost:" + restPort + path))
                .timeout(Duration.ofSeconds(5))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return JSON.readTree(response.body());
  }

  String jobStatus(String jobId) throws Exception {
    return get("/jobs/" + jobId).get("state").asText();
  }

  private Result script(String name, String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(home.resolve("bin").resolve(name).toString());
    command.addAll(List.of(args));
    Files.createDirectories(dir);
    writeConfiguration();
    Path output = dir.resolve("command-" + (++commands) + "-" + name + ".txt");
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.redirectOutput(output.toFile());
    pb.environment().put("SEDIMENT_CLUSTER_DIR", dir.toString());
    pb.environment().put("FLINK_CONF_DIR", confDir.toString());
    pb.environment().putAll(environment);
    Process p = pb.start();
    if (!p.waitFor(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(
          String.join(" ", command)
              + " did not return within "
              + COMMAND_TIMEOUT
              + "; output:\n"
              + Files.readString(output, StandardCharsets.UTF_8));
    }
    return new Result(p.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
  }
}
