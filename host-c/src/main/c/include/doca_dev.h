/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-java: DOCA Core devices. A device of this library is not a piece of hardware: it is one line of
 * the file named by the environment variable DOCA_UROM_SERVICE_FILE that is meant for this host, and it
 * stands for the UROM daemon that line names (docs/c-host.md describes the file). A program finds it
 * as it would find a BlueField: by IB device name (the first network device of the line, without its
 * port), by interface name (the same) or by PCI address (the line's).
 *
 * doca_devinfo_create_list() reads the file anew on each call; an unset variable or an unreadable file
 * gives an empty list (and one SDK log line saying why). Lists, devices and their devinfos are
 * independent: a device opened from a list stays valid after the list is destroyed.
 *
 * Representors do not exist here: their functions answer DOCA_ERROR_NOT_SUPPORTED (or
 * DOCA_ERROR_INVALID_VALUE for NULL arguments).
 */
#ifndef DOCA_DEV_H_
#define DOCA_DEV_H_

#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_devinfo;
struct doca_devinfo_rep;
struct doca_dev;
struct doca_dev_rep;

/* Representor kinds (bit flags), as DOCA numbers them. */
enum doca_devinfo_rep_filter {
	DOCA_DEVINFO_REP_FILTER_ALL = 0,
	DOCA_DEVINFO_REP_FILTER_NET = 1 << 1,
	DOCA_DEVINFO_REP_FILTER_EMULATED = 1 << 2,
};

/* Buffer sizes of the properties, terminating NUL included. */
#define DOCA_DEVINFO_VUID_SIZE 128
#define DOCA_DEVINFO_IPV4_ADDR_SIZE 4
#define DOCA_DEVINFO_IPV6_ADDR_SIZE 16
#define DOCA_DEVINFO_MAC_ADDR_SIZE 6
#define DOCA_DEVINFO_IFACE_NAME_SIZE 256
#define DOCA_DEVINFO_IBDEV_NAME_SIZE 64
/* "DDDD:BB:DD.F" */
#define DOCA_DEVINFO_PCI_ADDR_SIZE 13
/* "BB:DD.F" */
#define DOCA_DEVINFO_PCI_BDF_SIZE 8
#define DOCA_DEVINFO_REP_VUID_SIZE 128
#define DOCA_DEVINFO_REP_PCI_ADDR_SIZE 13
#define DOCA_DEVINFO_REP_PCI_BDF_SIZE 8

/* The devices of this host. (*dev_list)[i] for i < *nb_devs; the array ends with NULL. Destroy it with
 * doca_devinfo_destroy_list(). INVALID_VALUE for NULL arguments, NO_MEMORY. */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_create_list(struct doca_devinfo ***dev_list, uint32_t *nb_devs);
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_destroy_list(struct doca_devinfo **dev_list);

/* Opens the device a devinfo describes (a copy of it: the list may be destroyed afterwards). */
DOCA_EXPERIMENTAL doca_error_t doca_dev_open(struct doca_devinfo *devinfo, struct doca_dev **dev);
DOCA_EXPERIMENTAL doca_error_t doca_dev_close(struct doca_dev *dev);
/* The device's own devinfo, valid until the device is closed; NULL for NULL. */
DOCA_EXPERIMENTAL struct doca_devinfo *doca_dev_as_devinfo(const struct doca_dev *dev);

/* Properties. Each buffer must be at least the size named above (INVALID_VALUE otherwise). */
/* "DDDD:BB:DD.F", lower-case hexadecimal; pci_addr_str holds DOCA_DEVINFO_PCI_ADDR_SIZE bytes. */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_get_pci_addr_str(const struct doca_devinfo *devinfo, char *pci_addr_str);
/* pci_addr_str is "DDDD:BB:DD.F" or "BB:DD.F" (domain 0), hexadecimal in either case; INVALID_VALUE
 * when it is neither. */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_is_equal_pci_addr(const struct doca_devinfo *devinfo,
							      const char *pci_addr_str, uint8_t *is_equal);
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_get_iface_name(const struct doca_devinfo *devinfo, char *iface_name,
							   uint32_t size);
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_get_ibdev_name(const struct doca_devinfo *devinfo, char *ibdev_name,
							   uint32_t size);
/* Always DOCA_PCI_FUNC_TYPE_PF: a line of the service file names a physical function. */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_get_pci_func_type(const struct doca_devinfo *devinfo,
							      enum doca_pci_func_type *pci_func_type);
/* No device here is a sub-function: NOT_SUPPORTED. */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_get_sf_index(const struct doca_devinfo *devinfo, uint32_t *sf_index);

/* Representors: NOT_SUPPORTED. */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_rep_create_list(struct doca_dev *dev, int filter,
							    struct doca_devinfo_rep ***dev_list_rep,
							    uint32_t *nb_devs_rep);
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_rep_destroy_list(struct doca_devinfo_rep **dev_list_rep);
DOCA_EXPERIMENTAL doca_error_t doca_dev_rep_open(struct doca_devinfo_rep *devinfo, struct doca_dev_rep **dev_rep);
DOCA_EXPERIMENTAL doca_error_t doca_dev_rep_close(struct doca_dev_rep *dev);
DOCA_EXPERIMENTAL struct doca_devinfo_rep *doca_dev_rep_as_devinfo(struct doca_dev_rep *dev_rep);
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_rep_get_vuid(const struct doca_devinfo_rep *devinfo_rep, char *rep_vuid,
							 uint32_t size);
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_rep_get_pci_addr_str(const struct doca_devinfo_rep *devinfo_rep,
								 char *pci_addr_str);
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_rep_get_pci_func_type(const struct doca_devinfo_rep *devinfo_rep,
								  enum doca_pci_func_type *pci_func_type);
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_rep_is_equal_pci_addr(const struct doca_devinfo_rep *devinfo_rep,
								  const char *pci_addr_str, uint8_t *is_equal);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DEV_H_ */
