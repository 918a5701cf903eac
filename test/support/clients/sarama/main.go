// The scenario of test/support/clients/harness.ts with Debian's Go client: Shopify/sarama 1.22.1
// (golang-github-shopify-sarama-dev), built offline by .ci/build-sarama.sh with Debian's Go 1.19
// from /usr/share/gocode (GO111MODULE=off). Argument: the Scenario as JSON; prints the
// DriverResult as one JSON line. Codecs: all five (zstd through cgo and Debian's libzstd).
// sarama 1.22.1 knows Kafka up to 2.2 (its MaxVersion) and has no transactions.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/Shopify/sarama"
)

type message struct {
	Key     string      `json:"key"`
	Value   string      `json:"value"`
	Headers [][2]string `json:"headers"`
}

type scenario struct {
	Bootstrap  string `json:"bootstrap"`
	TimeoutMs  int    `json:"timeoutMs"`
	AdminTopic string `json:"adminTopic"`
	Topic      string `json:"topic"`
	Partitions int    `json:"partitions"`
	GroupID    string `json:"groupId"`
	Phase1     []struct {
		Codec    string    `json:"codec"`
		Messages []message `json:"messages"`
	} `json:"phase1"`
	Phase2 []message `json:"phase2"`
	Phase3 []message `json:"phase3"`
}

type stepResult struct {
	Ok    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

type groupResult struct {
	Phase1 [2][]message `json:"phase1"`
	Phase2 []message    `json:"phase2"`
}

type resumeResult struct {
	Consumed []message `json:"consumed"`
}

type result struct {
	Steps  map[string]stepResult `json:"steps"`
	Group  *groupResult          `json:"group,omitempty"`
	Resume *resumeResult         `json:"resume,omitempty"`
}

const wait = 30 * time.Second

var (
	s       scenario
	brokers []string
	out     = result{Steps: map[string]stepResult{}}
	outMu   sync.Mutex
)

func step(name string, f func() error) {
	err := f()
	outMu.Lock()
	defer outMu.Unlock()
	if err != nil {
		out.Steps[name] = stepResult{Ok: false, Error: err.Error()}
	} else {
		out.Steps[name] = stepResult{Ok: true}
	}
}

func config() *sarama.Config {
	c := sarama.NewConfig()
	c.ClientID = "sarama-interop"
	c.Version = sarama.MaxVersion
	c.Net.DialTimeout = 3 * time.Second
	c.Metadata.Retry.Max = 3
	c.Metadata.Retry.Backoff = 100 * time.Millisecond
	return c
}

func until(done func() bool, what func() string) error {
	end := time.Now().Add(wait)
	for !done() {
		if time.Now().After(end) {
			return fmt.Errorf("not within %v: %s", wait, what())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

var codecs = map[string]sarama.CompressionCodec{
	"none": sarama.CompressionNone, "gzip": sarama.CompressionGZIP, "snappy": sarama.CompressionSnappy,
	"lz4": sarama.CompressionLZ4, "zstd": sarama.CompressionZSTD,
}

func send(messages []message, codec string) error {
	c := config()
	c.Producer.Compression = codecs[codec]
	c.Producer.RequiredAcks = sarama.WaitForAll
	c.Producer.Return.Successes = true
	c.Producer.Idempotent = true
	c.Net.MaxOpenRequests = 1
	p, err := sarama.NewSyncProducer(brokers, c)
	if err != nil {
		return fmt.Errorf("%s producer: %w", codec, err)
	}
	defer p.Close()
	batch := make([]*sarama.ProducerMessage, 0, len(messages))
	for _, m := range messages {
		headers := make([]sarama.RecordHeader, 0, len(m.Headers))
		for _, h := range m.Headers {
			headers = append(headers, sarama.RecordHeader{Key: []byte(h[0]), Value: []byte(h[1])})
		}
		batch = append(batch, &sarama.ProducerMessage{
			Topic: s.Topic, Key: sarama.StringEncoder(m.Key), Value: sarama.StringEncoder(m.Value), Headers: headers,
		})
	}
	if err := p.SendMessages(batch); err != nil {
		return fmt.Errorf("%s: %w", codec, err)
	}
	return nil
}

// member is a group member that records what it reads and marks each record (committed every 100 ms).
type member struct {
	mu       sync.Mutex
	got      []message
	held     int
	cancel   context.CancelFunc
	done     chan struct{}
	err      error
	group    sarama.ConsumerGroup
	shutdown sync.Once
}

func (m *member) Setup(sess sarama.ConsumerGroupSession) error {
	n := 0
	for _, ps := range sess.Claims() {
		n += len(ps)
	}
	m.mu.Lock()
	m.held = n
	m.mu.Unlock()
	return nil
}

func (m *member) Cleanup(sarama.ConsumerGroupSession) error {
	m.mu.Lock()
	m.held = 0
	m.mu.Unlock()
	return nil
}

func (m *member) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for msg := range claim.Messages() {
		headers := [][2]string{}
		for _, h := range msg.Headers {
			headers = append(headers, [2]string{string(h.Key), string(h.Value)})
		}
		m.mu.Lock()
		m.got = append(m.got, message{Key: string(msg.Key), Value: string(msg.Value), Headers: headers})
		m.mu.Unlock()
		sess.MarkMessage(msg, "")
	}
	return nil
}

func (m *member) snapshot() ([]message, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]message(nil), m.got...), m.held
}

func join() (*member, error) {
	c := config()
	c.Consumer.Offsets.Initial = sarama.OffsetOldest
	c.Consumer.Offsets.CommitInterval = 100 * time.Millisecond
	// Retention set: OffsetCommit v2 (v1 otherwise), the lowest Kafka 4 serves.
	c.Consumer.Offsets.Retention = 24 * time.Hour
	c.Consumer.Group.Session.Timeout = 10 * time.Second
	c.Consumer.Group.Heartbeat.Interval = 300 * time.Millisecond
	c.Consumer.MaxWaitTime = 100 * time.Millisecond
	c.Consumer.Return.Errors = true
	group, err := sarama.NewConsumerGroup(brokers, s.GroupID, c)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &member{cancel: cancel, done: make(chan struct{}), group: group}
	go func() {
		for err := range group.Errors() {
			m.mu.Lock()
			m.err = err
			m.mu.Unlock()
		}
	}()
	go func() {
		defer close(m.done)
		for ctx.Err() == nil {
			if err := group.Consume(ctx, []string{s.Topic}, m); err != nil {
				m.mu.Lock()
				m.err = err
				m.mu.Unlock()
				time.Sleep(100 * time.Millisecond)
			}
		}
	}()
	return m, nil
}

func (m *member) lastError() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err == nil {
		return "no error"
	}
	return m.err.Error()
}

// leave commits what was marked and leaves the group (LeaveGroup).
func (m *member) leave() {
	m.shutdown.Do(func() {
		m.cancel()
		// Close makes a Consume that is still joining return.
		m.group.Close()
		select {
		case <-m.done:
		case <-time.After(5 * time.Second):
		}
	})
}

func distinct(ms ...[]message) int {
	seen := map[string]bool{}
	for _, list := range ms {
		for _, m := range list {
			b, _ := json.Marshal(m)
			seen[string(b)] = true
		}
	}
	return len(seen)
}

func main() {
	if err := json.Unmarshal([]byte(os.Args[1]), &s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	brokers = strings.Split(s.Bootstrap, ",")
	go func() {
		time.Sleep(time.Duration(s.TimeoutMs) * time.Millisecond)
		outMu.Lock()
		for _, name := range []string{"admin", "produce", "group", "resume"} {
			if _, ok := out.Steps[name]; !ok {
				out.Steps[name] = stepResult{Ok: false, Error: fmt.Sprintf("the driver's time-out (%d ms) ended this step", s.TimeoutMs)}
			}
		}
		b, _ := json.Marshal(out)
		fmt.Println(string(b))
		os.Exit(0)
	}()

	step("admin", func() error {
		admin, err := sarama.NewClusterAdmin(brokers, config())
		if err != nil {
			return err
		}
		defer admin.Close()
		if err := admin.CreateTopic(s.AdminTopic, &sarama.TopicDetail{NumPartitions: 2, ReplicationFactor: 1}, false); err != nil {
			return err
		}
		described, err := admin.DescribeTopics([]string{s.AdminTopic})
		if err != nil {
			return err
		}
		if len(described) != 1 || len(described[0].Partitions) != 2 {
			return fmt.Errorf("metadata of %s: %+v", s.AdminTopic, described)
		}
		return nil
	})

	step("group", func() error {
		m1, err := join()
		if err != nil {
			return err
		}
		defer m1.leave()
		m2, err := join()
		if err != nil {
			return err
		}
		defer m2.leave()
		if err := until(func() bool {
			_, h1 := m1.snapshot()
			_, h2 := m2.snapshot()
			return h1 > 0 && h2 > 0 && h1+h2 == s.Partitions
		}, func() string {
			_, h1 := m1.snapshot()
			_, h2 := m2.snapshot()
			return fmt.Sprintf("the members hold %d and %d partitions (member 1: %s; member 2: %s)", h1, h2, m1.lastError(), m2.lastError())
		}); err != nil {
			return err
		}
		step("produce", func() error {
			for _, p := range s.Phase1 {
				if err := send(p.Messages, p.Codec); err != nil {
					return err
				}
			}
			return nil
		})
		if !out.Steps["produce"].Ok {
			return fmt.Errorf("phase 1 was not produced")
		}
		phase1 := 0
		for _, p := range s.Phase1 {
			phase1 += len(p.Messages)
		}
		if err := until(func() bool {
			g1, _ := m1.snapshot()
			g2, _ := m2.snapshot()
			return distinct(g1, g2) == phase1
		}, func() string { return "phase 1 not read" }); err != nil {
			return err
		}
		g1, _ := m1.snapshot()
		g2, _ := m2.snapshot()
		group := &groupResult{Phase1: [2][]message{g1, g2}, Phase2: []message{}}
		outMu.Lock()
		out.Group = group
		outMu.Unlock()
		m2.leave()
		if err := until(func() bool { _, h := m1.snapshot(); return h == s.Partitions }, func() string { return "member 1 did not get every partition" }); err != nil {
			return err
		}
		mark := len(g1)
		if err := send(s.Phase2, "none"); err != nil {
			return err
		}
		if err := until(func() bool { g, _ := m1.snapshot(); return len(g)-mark >= len(s.Phase2) }, func() string { return "phase 2 not read" }); err != nil {
			return err
		}
		g, _ := m1.snapshot()
		outMu.Lock()
		group.Phase2 = g[mark:]
		outMu.Unlock()
		return nil
	})

	// Produce on its own when the group step failed before it (the members never joined).
	if _, ok := out.Steps["produce"]; !ok {
		step("produce", func() error {
			for _, p := range s.Phase1 {
				if err := send(p.Messages, p.Codec); err != nil {
					return err
				}
			}
			return nil
		})
	}

	// Kafka 4 refuses sarama 1.22.1's JoinGroup v1 (KIP-896), so no group member resumes: an
	// offset manager commits the group's offsets (OffsetCommit v2, generation -1 as for a group
	// without members) at the end of the topic, phase 3 is produced, and a new offset manager
	// fetches them (OffsetFetch v1) for partition consumers (Fetch), which read exactly phase 3.
	// Every version involved is one Kafka 4 serves.
	step("resume", func() error {
		c := config()
		c.Consumer.Offsets.Initial = sarama.OffsetOldest
		c.Consumer.Offsets.Retention = 24 * time.Hour
		c.Consumer.MaxWaitTime = 100 * time.Millisecond
		client, err := sarama.NewClient(brokers, c)
		if err != nil {
			return err
		}
		defer client.Close()
		om, err := sarama.NewOffsetManagerFromClient(s.GroupID, client)
		if err != nil {
			return err
		}
		for p := int32(0); p < int32(s.Partitions); p++ {
			end, err := client.GetOffset(s.Topic, p, sarama.OffsetNewest)
			if err != nil {
				return err
			}
			pom, err := om.ManagePartition(s.Topic, p)
			if err != nil {
				return err
			}
			pom.MarkOffset(end, "")
			pom.AsyncClose()
		}
		// Close commits what was marked.
		om.Close()
		if err := send(s.Phase3, "none"); err != nil {
			return err
		}
		again, err := sarama.NewOffsetManagerFromClient(s.GroupID, client)
		if err != nil {
			return err
		}
		defer again.Close()
		consumer, err := sarama.NewConsumerFromClient(client)
		if err != nil {
			return err
		}
		defer consumer.Close()
		var mu sync.Mutex
		got := []message{}
		for p := int32(0); p < int32(s.Partitions); p++ {
			pom, err := again.ManagePartition(s.Topic, p)
			if err != nil {
				return err
			}
			defer pom.AsyncClose()
			from, _ := pom.NextOffset()
			pc, err := consumer.ConsumePartition(s.Topic, p, from)
			if err != nil {
				return fmt.Errorf("partition %d from %d: %w", p, from, err)
			}
			defer pc.AsyncClose()
			go func() {
				for msg := range pc.Messages() {
					headers := [][2]string{}
					for _, h := range msg.Headers {
						headers = append(headers, [2]string{string(h.Key), string(h.Value)})
					}
					mu.Lock()
					got = append(got, message{Key: string(msg.Key), Value: string(msg.Value), Headers: headers})
					mu.Unlock()
				}
			}()
		}
		count := func() int { mu.Lock(); defer mu.Unlock(); return len(got) }
		if err := until(func() bool { return count() >= len(s.Phase3) }, func() string { return fmt.Sprintf("phase 3: read %d", count()) }); err != nil {
			return err
		}
		// Anything beyond phase 3 would arrive within a few more fetches.
		time.Sleep(300 * time.Millisecond)
		mu.Lock()
		consumed := append([]message(nil), got...)
		mu.Unlock()
		outMu.Lock()
		out.Resume = &resumeResult{Consumed: consumed}
		outMu.Unlock()
		return nil
	})

	outMu.Lock()
	b, _ := json.Marshal(out)
	fmt.Println(string(b))
}
