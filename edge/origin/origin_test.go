package origin_test

import (
	"reflect"
	"testing"

	"github.com/gatewaycircuit/gatewaycircuit/edge/origin"
)

func TestKeepEncodeDecode(t *testing.T) {
	h := origin.Header{{"content-type", "application/json"}, {"set-cookie", "s=1"}, {"etag", `"v1"`}, {"connection", "close"}, {"link", "a\nb"}}
	kept := origin.Keep(h)
	want := origin.Header{{"content-type", "application/json"}, {"etag", `"v1"`}, {"link", "a b"}}
	if got := origin.Decode(origin.Encode(kept)); !reflect.DeepEqual(got, want) {
		t.Fatalf("%v", got)
	}
	if kept.Set("etag", "x").Get("etag") != "x" || kept.Get("missing") != "" {
		t.Fatal("Set/Get")
	}
}
