extension ShippedProtocols {
    /// Health Thermometer Service (GATT Specification Supplement: Temperature Measurement,
    /// Intermediate Temperature, Temperature Type, Measurement Interval).
    static let healthThermometer = """
    btlog-protocol: 1
    name: Health Thermometer
    key: hts
    description: Health Thermometer Service - temperature measurements, type and interval
    inline: true
    field-names: short
    gatt:
      - {characteristic: 2A1C, message: measurement}
      - {characteristic: 2A1E, message: measurement}
      - {characteristic: 2A1D, message: type}
      - {characteristic: 2A21, message: interval}
    messages:
      measurement:
        name: Temperature Measurement
        fields:
          - name: flags
            type: u8
            bits:
              - {name: units, label: Temperature units, bit: 0, values: {0: °C, 1: °F}}
              - {name: time_present, label: Time stamp present, bit: 1}
              - {name: type_present, label: Temperature type present, bit: 2}
          - {name: temperature, label: Temperature, type: medfloat32}
          - {name: time, label: Time stamp, type: datetime, if: "flags & 0x02"}
          - name: type
            label: Temperature type
            type: u8
            if: "flags & 0x04"
            values: {1: Armpit, 2: Body (general), 3: Ear, 4: Finger, 5: Gastro-intestinal tract, 6: Mouth, 7: Rectum, 8: Toe, 9: Tympanum}
        summary:
          - "{temperature} {units}"
          - "{type}"
      type:
        name: Temperature Type
        fields:
          - name: location
            label: Temperature type
            type: u8
            values: {1: Armpit, 2: Body (general), 3: Ear, 4: Finger, 5: Gastro-intestinal tract, 6: Mouth, 7: Rectum, 8: Toe, 9: Tympanum}
        summary: ["{location}"]
      interval:
        name: Measurement Interval
        fields:
          - {name: interval, label: Measurement interval, type: u16, unit: s}
        summary: ["Every {interval} s"]
    """
}
