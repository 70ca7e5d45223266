package venue

import "testing"

// The error table's numbers, HTTP statuses and names as the spec lists
// them (WOO X API docs, "Error Codes"): a code sent by the venue must map to the
// constant the client and the simulator act on.
func TestCodeTableMatchesTheSpec(t *testing.T) {
	for _, c := range []struct {
		code   Code
		number int
		status int
		name   string
	}{
		{CodeUnknown, -1000, 500, "UNKNOWN"},
		{CodeInvalidSignature, -1001, 401, "INVALID_SIGNATURE"},
		{CodeUnauthorized, -1002, 401, "UNAUTHORIZED"},
		{CodeTooManyRequest, -1003, 429, "TOO_MANY_REQUEST"},
		{CodeUnknownParam, -1004, 400, "UNKNOWN_PARAM"},
		{CodeInvalidParam, -1005, 400, "INVALID_PARAM"},
		{CodeResourceNotFound, -1006, 400, "RESOURCE_NOT_FOUND"},
		{CodeDuplicateRequest, -1007, 409, "DUPLICATE_REQUEST"},
		{CodeQuantityTooHigh, -1008, 400, "QUANTITY_TOO_HIGH"},
		{CodeCanNotWithdrawal, -1009, 400, "CAN_NOT_WITHDRAWAL"},
		{CodeRPCNotConnect, -1011, 400, "RPC_NOT_CONNECT"},
		{CodeRPCReject, -1012, 400, "RPC_REJECT"},
		{CodeRiskTooHigh, -1101, 400, "RISK_TOO_HIGH"},
		{CodeMinNotional, -1102, 400, "MIN_NOTIONAL"},
		{CodePriceFilter, -1103, 400, "PRICE_FILTER"},
		{CodeSizeFilter, -1104, 400, "SIZE_FILTER"},
		{CodePercentageFilter, -1105, 400, "PERCENTAGE_FILTER"},
	} {
		if int(c.code) != c.number {
			t.Errorf("%s is %d, the spec says %d", c.name, int(c.code), c.number)
		}
		if info := Codes[c.code]; info.HTTPStatus != c.status || info.Name != c.name {
			t.Errorf("%d: %+v, want HTTP %d %s", c.number, info, c.status, c.name)
		}
	}
	if len(Codes) != 17 {
		t.Errorf("%d codes in the table, the spec has 17", len(Codes))
	}
}
