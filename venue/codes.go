package venue

// Code is a venue error code (the `code` of a failed REST reply).
type Code int

// The venue's error table (WOO X API docs, https://docs.woox.io/, "Error Codes").
const (
	CodeUnknown          Code = -1000
	CodeInvalidSignature Code = -1001
	CodeUnauthorized     Code = -1002
	CodeTooManyRequest   Code = -1003
	CodeUnknownParam     Code = -1004
	CodeInvalidParam     Code = -1005
	CodeResourceNotFound Code = -1006
	CodeDuplicateRequest Code = -1007
	CodeQuantityTooHigh  Code = -1008
	CodeCanNotWithdrawal Code = -1009
	CodeRPCNotConnect    Code = -1011
	CodeRPCReject        Code = -1012
	CodeRiskTooHigh      Code = -1101
	CodeMinNotional      Code = -1102
	CodePriceFilter      Code = -1103
	CodeSizeFilter       Code = -1104
	CodePercentageFilter Code = -1105
)

// CodeInfo is one row of the error table.
type CodeInfo struct {
	HTTPStatus int
	Name       string
	Meaning    string
}

// Codes is the whole error table, shared by the client (to explain errors)
// and the simulator (to produce them).
var Codes = map[Code]CodeInfo{
	CodeUnknown:          {500, "UNKNOWN", "unknown error while processing"},
	CodeInvalidSignature: {401, "INVALID_SIGNATURE", "key or secret in wrong format"},
	CodeUnauthorized:     {401, "UNAUTHORIZED", "key or secret invalid, insufficient permission, expired or revoked"},
	CodeTooManyRequest:   {429, "TOO_MANY_REQUEST", "rate limit exceeded"},
	CodeUnknownParam:     {400, "UNKNOWN_PARAM", "an unknown parameter was sent"},
	CodeInvalidParam:     {400, "INVALID_PARAM", "a parameter has a wrong format"},
	CodeResourceNotFound: {400, "RESOURCE_NOT_FOUND", "data not found"},
	CodeDuplicateRequest: {409, "DUPLICATE_REQUEST", "data already exists or request duplicated"},
	CodeQuantityTooHigh:  {400, "QUANTITY_TOO_HIGH", "settlement quantity higher than can be requested"},
	CodeCanNotWithdrawal: {400, "CAN_NOT_WITHDRAWAL", "withdrawal cannot be requested; other arrears must be deposited first"},
	CodeRPCNotConnect:    {400, "RPC_NOT_CONNECT", "cannot place or cancel orders, internal network error; retry after a few seconds"},
	CodeRPCReject:        {400, "RPC_REJECT", "request rejected by an internal module; retry after a few seconds"},
	CodeRiskTooHigh:      {400, "RISK_TOO_HIGH", "risk exposure too high (order too big or leverage too low)"},
	CodeMinNotional:      {400, "MIN_NOTIONAL", "price * size too small"},
	CodePriceFilter:      {400, "PRICE_FILTER", "price violates the tick size rule"},
	CodeSizeFilter:       {400, "SIZE_FILTER", "quantity violates the step size rule"},
	CodePercentageFilter: {400, "PERCENTAGE_FILTER", "price is too far from the mid price"},
}

// Info returns the table row of c; unknown codes get a generic row.
func (c Code) Info() CodeInfo {
	if info, ok := Codes[c]; ok {
		return info
	}
	return CodeInfo{HTTPStatus: 400, Name: "UNLISTED", Meaning: "error code not in the venue's table"}
}
