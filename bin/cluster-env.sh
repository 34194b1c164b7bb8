# Shared by bin/local-cluster and bin/flink (sourced, not run): where the local cluster's
# configuration, classpath, logs and PID files are, and the JVM options of its processes.

SEDIMENT_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The cluster's configuration directory (config.yaml, log4j*.properties): flink-conf/ by default.
FLINK_CONF_DIR="${FLINK_CONF_DIR:-$SEDIMENT_HOME/flink-conf}"
# Logs, PID files, checkpoints and savepoints of the local cluster.
CLUSTER_DIR="${SEDIMENT_CLUSTER_DIR:-$SEDIMENT_HOME/target/local-cluster}"
# Flink's runtime classpath (its modules, their dependencies, Log4j), written by `mvn package`.
FLINK_CLASSPATH_FILE="$SEDIMENT_HOME/target/flink-classpath.txt"
# Flink file system plugins (e.g. plugins/s3-fs-hadoop/flink-s3-fs-hadoop-2.3.0.jar for s3://).
export FLINK_PLUGINS_DIR="${FLINK_PLUGINS_DIR:-$CLUSTER_DIR/plugins}"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"

# A top-level `key: value` line of config.yaml (flat keys only), or $2 when absent.
config_value() {
  local v
  v="$(sed -n "s/^$1:[[:space:]]*//p" "$FLINK_CONF_DIR/config.yaml" | tail -n 1)"
  echo "${v:-$2}"
}

# Jars every process of the local cluster (and bin/flink, bin/sql-client) has on its class path,
# as a distribution has the jars of its lib/: e.g. SEDIMENT_CLUSTER_LIB=target/sediment-flink.jar
# makes Sediment's catalog available to the SQL client without -j. Colon-separated.
CLUSTER_LIB="${SEDIMENT_CLUSTER_LIB:-}"

flink_classpath() {
  if [[ ! -s "$FLINK_CLASSPATH_FILE" ]]; then
    echo "Error: $FLINK_CLASSPATH_FILE is missing; build it with 'mvn -DskipTests package'" >&2
    exit 1
  fi
  echo "$(cat "$FLINK_CLASSPATH_FILE")${CLUSTER_LIB:+:$CLUSTER_LIB}"
}

# Flink's JVM options for JDK 17 (--add-opens/--add-exports), as a distribution's config.yaml has.
JAVA_OPTS_ALL="$(config_value env.java.opts.all "")"
REST_PORT="$(config_value rest.port 8081)"
