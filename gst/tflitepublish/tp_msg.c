/* tp_msg.c - messages as single allocations. */
#include "tp_msg.h"

#include <stdlib.h>
#include <string.h>

tp_msg *tp_msg_new(uint64_t seq, const char *topic, size_t topic_len, const char *key, size_t key_len,
                   const char *payload, size_t payload_len)
{
  if (topic_len > UINT32_MAX || key_len > UINT32_MAX || payload_len > UINT32_MAX - 64) return NULL;
  tp_msg *m = malloc(sizeof(*m) + topic_len + key_len + payload_len + 3);
  if (!m) return NULL;
  m->next = m->prev = NULL;
  m->counted = 0;
  m->seq = seq;
  m->topic_len = (uint32_t)topic_len;
  m->key_len = key ? (uint32_t)key_len : 0;
  m->payload_len = (uint32_t)payload_len;
  m->topic = (char *)(m + 1);
  m->key = m->topic + topic_len + 1;
  m->payload = m->key + m->key_len + 1;
  memcpy(m->topic, topic, topic_len);
  m->topic[topic_len] = '\0';
  if (m->key_len) memcpy(m->key, key, m->key_len);
  m->key[m->key_len] = '\0';
  if (payload_len) memcpy(m->payload, payload, payload_len);
  m->payload[payload_len] = '\0';
  return m;
}

void tp_msg_free(tp_msg *m)
{
  free(m);
}

size_t tp_msg_size(const tp_msg *m)
{
  return (size_t)m->topic_len + m->key_len + m->payload_len;
}
