package idempotency_test

import (
	"errors"
	"fmt"

	idem "github.com/gatewaycircuit/gatewaycircuit/idempotency"
	"github.com/gatewaycircuit/gatewaycircuit/internal/idempotency"
	"github.com/gatewaycircuit/gatewaycircuit/internal/store"
)

func Example() {
	sessionStorage := store.NewMemory()
	ledger, _ := idempotency.New(idempotency.Policy{}, sessionStorage)
	now := int64(1_700_000_000_000)
	const op = "POST https://app.example/api/orders"
	random := [16]byte{0x8e, 0x03, 0x97, 0x8e, 0x40, 0xd5, 0x43, 0xe8, 0xbc, 0x93, 0x68, 0x94, 0xa5, 0x7f, 0x93, 0x24}

	// The user clicks "save" twice, 40 ms apart.
	fp, _ := ledger.Fingerprint([]byte(`{"item":"tea","qty":2}`))
	key := ledger.Derive(now, op, fp, random)
	first, _ := ledger.Begin(now, op, key, fp)
	second, _ := ledger.Begin(now+40, op, ledger.Derive(now+40, op, fp, [16]byte{9}), fp)
	header, _ := idem.HeaderValue(key)
	fmt.Println(first, second, header)

	// No answer comes, the user presses F5 and saves again.
	reloaded, _ := idempotency.New(idempotency.Policy{}, sessionStorage)
	reloaded.Load(now + 5000)
	again := reloaded.Derive(now+6000, op, fp, [16]byte{7})
	retry, _ := reloaded.Begin(now+6000, op, again, fp)
	fmt.Println(again == key, retry)
	fmt.Println(reloaded.Finish(now+6100, op, again, 201))

	// The same key with another body never reaches the network.
	other, _ := reloaded.Fingerprint([]byte(`{"item":"tea","qty":3}`))
	_, err := reloaded.Begin(now+7000, op, key, other)
	fmt.Println(errors.Is(err, idempotency.ErrKeyReused))
	// Output:
	// start join "8e03978e-40d5-43e8-bc93-6894a57f9324"
	// true retry
	// done
	// true
}
