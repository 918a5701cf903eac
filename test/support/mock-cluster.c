/*
 * A standalone librdkafka mock cluster for the interop tests (test/interop-librdkafka-2.15.test.ts).
 * .ci/build-librdkafka.sh compiles it against the librdkafka it builds.
 *
 *   mock-cluster [--brokers N] [--rebalance-delay-ms MS] [--advertise HOST:PORT]
 *                [--topic NAME:PARTITIONS]...
 *
 * Starts rd_kafka_mock_cluster_new() with N brokers (default 1) and creates the topics, then
 * prints two lines on stdout and flushes (the bootstrap list is where the brokers listen):
 *
 *   version=2.15.1
 *   bootstrap=127.0.0.1:40123
 *
 * --advertise makes broker 1 name HOST:PORT in Metadata and FindCoordinator replies instead of its
 * listener, so that clients keep going through a proxy there.
 *
 * It runs until stdin reaches end of file (so the mock dies with its parent) or SIGINT/SIGTERM
 * arrives, then destroys the cluster and exits 0. librdkafka's own logs go to stderr.
 */

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

static volatile sig_atomic_t stopping = 0;

static void on_signal(int sig) {
        (void)sig;
        stopping = 1;
}

static void usage(const char *why) {
        fprintf(stderr,
                "mock-cluster: %s\n"
                "usage: mock-cluster [--brokers N] [--rebalance-delay-ms MS] "
                "[--advertise HOST:PORT] [--topic NAME:PARTITIONS]...\n",
                why);
        exit(2);
}

/* A positive int from a decimal string, or usage(). */
static int parse_count(const char *s, const char *what, int min) {
        char *end;
        long v;
        errno = 0;
        v     = strtol(s, &end, 10);
        if (errno != 0 || end == s || *end != '\0' || v < min || v > 100000)
                usage(what);
        return (int)v;
}

int main(int argc, char **argv) {
        int brokers = 1, delay_ms = -1, topic_cnt = 0, i;
        const char *advertise = NULL;
        const char **topics = calloc((size_t)argc, sizeof(*topics));
        char errstr[512];
        rd_kafka_conf_t *conf;
        rd_kafka_t *rk;
        rd_kafka_mock_cluster_t *mcluster;
        struct sigaction sa;

        if (!topics)
                return 1;
        for (i = 1; i < argc; i++) {
                if (!strcmp(argv[i], "--brokers") && i + 1 < argc)
                        brokers = parse_count(argv[++i], "bad --brokers", 1);
                else if (!strcmp(argv[i], "--rebalance-delay-ms") && i + 1 < argc)
                        delay_ms = parse_count(argv[++i], "bad --rebalance-delay-ms", 0);
                else if (!strcmp(argv[i], "--advertise") && i + 1 < argc)
                        advertise = argv[++i];
                else if (!strcmp(argv[i], "--topic") && i + 1 < argc)
                        topics[topic_cnt++] = argv[++i]; /* created once the cluster runs */
                else
                        usage("unknown argument");
        }

        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_signal;
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);

        /* The mock needs a client instance for its bookkeeping; this one never connects
         * anywhere (no bootstrap.servers). */
        conf = rd_kafka_conf_new();
        rk   = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
        if (!rk) {
                fprintf(stderr, "mock-cluster: rd_kafka_new: %s\n", errstr);
                return 1;
        }
        mcluster = rd_kafka_mock_cluster_new(rk, brokers);
        if (!mcluster) {
                fprintf(stderr, "mock-cluster: rd_kafka_mock_cluster_new failed\n");
                rd_kafka_destroy(rk);
                return 1;
        }
        if (delay_ms >= 0)
                rd_kafka_mock_group_initial_rebalance_delay_ms(mcluster, delay_ms);

        if (advertise) {
                char host[256];
                const char *colon = strrchr(advertise, ':');
                if (!colon || colon == advertise ||
                    (size_t)(colon - advertise) >= sizeof(host))
                        usage("bad --advertise (HOST:PORT)");
                memcpy(host, advertise, (size_t)(colon - advertise));
                host[colon - advertise] = '\0';
                rd_kafka_mock_broker_set_host_port(
                    mcluster, 1, host, parse_count(colon + 1, "bad port", 1));
        }

        for (i = 0; i < topic_cnt; i++) {
                char name[256];
                const char *colon = strrchr(topics[i], ':');
                rd_kafka_resp_err_t err;
                if (!colon || colon == topics[i] ||
                    (size_t)(colon - topics[i]) >= sizeof(name))
                        usage("bad --topic (NAME:PARTITIONS)");
                memcpy(name, topics[i], (size_t)(colon - topics[i]));
                name[colon - topics[i]] = '\0';
                err = rd_kafka_mock_topic_create(
                    mcluster, name, parse_count(colon + 1, "bad partition count", 1),
                    brokers < 3 ? brokers : 3);
                if (err) {
                        fprintf(stderr, "mock-cluster: topic %s: %s\n", name,
                                rd_kafka_err2str(err));
                        return 1;
                }
        }

        printf("version=%s\nbootstrap=%s\n", rd_kafka_version_str(),
               rd_kafka_mock_cluster_bootstraps(mcluster));
        fflush(stdout);

        /* Wait for end of stdin or a signal; poll's timeout bounds how late a signal is seen. */
        while (!stopping) {
                struct pollfd pfd = {.fd = STDIN_FILENO, .events = POLLIN};
                int r             = poll(&pfd, 1, 200);
                if (r < 0 && errno != EINTR)
                        break;
                if (r > 0) {
                        char buf[256];
                        ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));
                        if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
                                break;
                }
        }

        rd_kafka_mock_cluster_destroy(mcluster);
        rd_kafka_destroy(rk);
        free(topics);
        return 0;
}
