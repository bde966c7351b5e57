#include "models/attention/map_probe.h"

namespace repro {

namespace {
thread_local AttentionMapProbe* t_active = nullptr;
}

AttentionMapProbe::AttentionMapProbe() : outer_(t_active) { t_active = this; }
AttentionMapProbe::~AttentionMapProbe() { t_active = outer_; }
AttentionMapProbe* AttentionMapProbe::active() { return t_active; }

}  // namespace repro
