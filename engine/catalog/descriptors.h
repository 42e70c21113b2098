#pragma once
// The description half of every workload of workload_list.h: `catalog::FUNCTION()`, each in its own
// file of engine/catalog/. The list gives each its name and kind; the function gives the rest.

#include "engine/catalog/workload_catalog.h"
#include "engine/catalog/workload_list.h"

namespace nf::engine::catalog {

#define NF_CATALOG_DECLARE(function, name, kind) WorkloadDescriptor function();
NF_WORKLOADS(NF_CATALOG_DECLARE)
#undef NF_CATALOG_DECLARE

}  // namespace nf::engine::catalog
