package mqtt

import "encoding/json"

// discoveryTopic returns the topic of the Home Assistant discovery config
// of the decision sensor: <prefix>/sensor/<node>/decision/config.
func discoveryTopic(prefix, clientID string) string {
	return prefix + "/sensor/" + nodeID(clientID) + "/decision/config"
}

// nodeID turns a client id into a Home Assistant node id, which may hold
// only [a-zA-Z0-9_-].
func nodeID(clientID string) string {
	b := []byte(clientID)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "setmatchd"
	}
	return string(b)
}

// valueTemplate is the sensor's state: the decision, with "unknown" (a
// stranger) named "stranger".
const valueTemplate = "{{ 'stranger' if value_json.decision == 'unknown' else value_json.decision }}"

// discoveryConfig is the retained discovery message: one sensor whose
// state is the decision of the last batch (a label, "stranger" for
// "unknown", which Home Assistant takes for a sensor without a value, or
// "failed") and whose attributes are the whole journal record of that
// batch.
func discoveryConfig(topic, clientID, version string) []byte {
	node := nodeID(clientID)
	type device struct {
		Identifiers  []string `json:"identifiers"`
		Name         string   `json:"name"`
		Manufacturer string   `json:"manufacturer"`
		Model        string   `json:"model"`
		SWVersion    string   `json:"sw_version,omitempty"`
	}
	c := struct {
		Name                string `json:"name"`
		UniqueID            string `json:"unique_id"`
		StateTopic          string `json:"state_topic"`
		ValueTemplate       string `json:"value_template"`
		JSONAttributesTopic string `json:"json_attributes_topic"`
		AvailabilityTopic   string `json:"availability_topic"`
		PayloadAvailable    string `json:"payload_available"`
		PayloadNotAvailable string `json:"payload_not_available"`
		ForceUpdate         bool   `json:"force_update"`
		Icon                string `json:"icon"`
		QoS                 int    `json:"qos"`
		Device              device `json:"device"`
	}{
		Name:                "Decision",
		UniqueID:            node + "_decision",
		StateTopic:          topic + "/state",
		ValueTemplate:       valueTemplate,
		JSONAttributesTopic: topic + "/state",
		AvailabilityTopic:   topic + "/availability",
		PayloadAvailable:    online,
		PayloadNotAvailable: offline,
		ForceUpdate:         true,
		Icon:                "mdi:image-search",
		QoS:                 1,
		Device: device{
			Identifiers:  []string{node},
			Name:         clientID,
			Manufacturer: "setmatch",
			Model:        "setmatchd",
			SWVersion:    version,
		},
	}
	b, _ := json.Marshal(c) // strings and bools only: cannot fail
	return b
}
