package main

import "tradedeck/panes/common"

// defaultKeyMap is every key binding of the dashboard: common.DefaultKeyMap,
// the one list the tests use too. Users rebind them by name in the
// config's [keys] table (see common.KeyMap.Named).
func defaultKeyMap() *common.KeyMap { return common.DefaultKeyMap() }
