#!/bin/bash
# fetch_kafka.sh - Apache Kafka's broker (org.apache.kafka:kafka_2.13 and its runtime
# dependencies, from Maven Central, with Maven) into a cache folder for the Kafka tests of
# tflitepublish (tests/publish/test_kafka.py runs it in KRaft mode on loopback).
#
# Usage: scripts/fetch_kafka.sh [CACHE_DIR]    prints the folder holding libs/*.jar
# CACHE_DIR defaults to ${XDG_CACHE_HOME:-~/.cache}/gst-tflite/kafka-$VERSION; a second run
# finds it complete and fetches nothing. Needs maven (scripts/setup.sh installs it) and Java 17.
set -euo pipefail

VERSION=${KAFKA_VERSION:-3.9.1}
cache=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/gst-tflite/kafka-$VERSION}
if [ -f "$cache/complete" ]; then
  echo "$cache"
  exit 0
fi
command -v mvn >/dev/null || { echo "fetch_kafka.sh: mvn not found (apt-get install maven)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# slf4j-reload4j: the broker's log lines go to the log4j file the test configures
cat >"$work/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.gst-tflite</groupId>
  <artifactId>kafka-broker-for-tests</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>$VERSION</version></dependency>
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-reload4j</artifactId><version>1.7.36</version></dependency>
  </dependencies>
</project>
POM
rm -rf "$cache/libs"
mkdir -p "$cache"
echo "fetch_kafka.sh: Kafka $VERSION jars into $cache/libs" >&2
mvn -q -B -f "$work/pom.xml" dependency:copy-dependencies -DincludeScope=runtime \
  -DoutputDirectory="$cache/libs" >&2
[ -f "$cache/libs/kafka_2.13-$VERSION.jar" ] || { echo "fetch_kafka.sh: kafka_2.13-$VERSION.jar missing" >&2; exit 1; }
touch "$cache/complete"
echo "$cache"
